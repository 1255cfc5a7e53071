extension HCIHost {
    /// Takes one packet from the controller.
    public mutating func receive(_ packet: HCI.H4Packet, at now: RigInstant) -> [Action] {
        self.now = now
        var actions: [Action] = []
        if case .failed = phase { return actions }
        switch packet.type {
        case .event:
            do {
                let event = try HCI.Event(decoding: HCI.EventPacket(decoding: packet.body))
                // Before handling: a disconnection's peer is known only until the link is forgotten.
                if let about = about(event) { actions.append(.received(about: about)) }
                handle(event, &actions)
            } catch {
                actions.append(.event(.warning("malformed event from the controller: \(error)")))
            }
        case .aclData:
            do {
                let data = try HCI.ACLDataPacket(decoding: packet.body)
                if let about = links[data.handle]?.peer { actions.append(.received(about: about)) }
                receiveACL(data, &actions)
            } catch {
                actions.append(.event(.warning("malformed ACL data from the controller: \(error)")))
            }
        default:
            actions.append(.event(.warning("ignored a \(packet.type) packet from the controller")))
        }
        return actions
    }

    // MARK: - Events

    /// The device an event concerns: the peer of the link it names (the first, for Number Of Completed Packets),
    /// the peer of a link that came up.
    func about(_ event: HCI.Event) -> DeviceAddress? {
        switch event {
        case let .leConnectionComplete(complete): return complete.status == .success ? complete.peerAddress : nil
        case let .disconnectionComplete(complete): return links[complete.handle]?.peer
        case let .numberOfCompletedPackets(entries): return entries.first.flatMap { links[$0.handle]?.peer }
        case let .leConnectionUpdateComplete(_, handle, _, _, _), let .leRemoteConnectionParameterRequest(handle, _),
            let .leDataLengthChange(handle, _, _, _, _), let .lePHYUpdateComplete(_, handle, _, _):
            return links[handle]?.peer
        default: return nil
        }
    }

    mutating func handle(_ event: HCI.Event, _ actions: inout [Action]) {
        switch event {
        case let .commandComplete(count, opcode, returnParameters):
            commandCredits = Int(count)
            guard opcode.rawValue != 0 else { break }  // a controller announcing its credits
            let status = returnParameters.first.map(HCIErrorCode.init(rawValue:)) ?? .success
            finishCommand(opcode, status: status, returnParameters: returnParameters, &actions)
        case let .commandStatus(status, count, opcode):
            commandCredits = Int(count)
            guard opcode.rawValue != 0 else { break }
            finishCommand(opcode, status: status, returnParameters: nil, &actions)
        case let .disconnectionComplete(event):
            guard event.status == .success else {
                actions.append(.event(.commandFailed(.disconnect, event.status)))
                break
            }
            guard links.removeValue(forKey: event.handle) != nil else { break }
            if let state = linkStates.removeValue(forKey: event.handle) {
                // The controller frees a link's buffers when it goes (Vol 4 Part E §4.3).
                aclCredits = min(aclCredits + state.inFlight, controller?.aclBuffers ?? aclCredits + state.inFlight)
            }
            actions.append(.event(.disconnected(handle: event.handle, reason: event.reason)))
        case let .numberOfCompletedPackets(entries):
            for entry in entries {
                guard let inFlight = linkStates[entry.handle]?.inFlight else { continue }
                let returned = min(Int(entry.count), inFlight)
                if returned < Int(entry.count) {
                    actions.append(
                        .event(
                            .warning(
                                "the controller returned \(entry.count) buffers for link 0x\(String(entry.handle, radix: 16)) but held \(inFlight)"
                            )))
                }
                linkStates[entry.handle]!.inFlight -= returned
                aclCredits += returned
            }
        case let .hardwareError(code):
            fail(.hardwareError(code), &actions)
            return
        case .dataBufferOverflow:
            actions.append(.event(.warning("the controller reported an ACL buffer overflow")))
        case let .leConnectionComplete(event):
            connectionComplete(event, &actions)
        case let .leAdvertisingReport(reports):
            for report in reports { actions.append(.event(.advertisement(report))) }
        case let .leExtendedAdvertisingReport(reports):
            for report in reports { extendedReport(report, &actions) }
        case let .leConnectionUpdateComplete(status, handle, interval, latency, timeout):
            guard var link = links[handle] else { break }
            guard status == .success else {
                actions.append(.event(.parameterUpdateFailed(handle: handle, status)))
                break
            }
            link.interval = interval
            link.latency = latency
            link.supervisionTimeout = timeout
            links[handle] = link
            actions.append(.event(.parametersChanged(link)))
        case let .leRemoteConnectionParameterRequest(handle, parameters):
            if configuration.acceptsParameterRequests, parameters.violation == nil {
                enqueue(.leRemoteConnectionParameterRequestReply(handle: handle, parameters), .other, &actions)
            } else {
                enqueue(
                    .leRemoteConnectionParameterRequestNegativeReply(
                        handle: handle, reason: .unacceptableConnectionParameters),
                    .other, &actions)
            }
        case let .leDataLengthChange(handle, txOctets, _, rxOctets, _):
            actions.append(.event(.dataLengthChanged(handle: handle, txOctets: txOctets, rxOctets: rxOctets)))
        case let .lePHYUpdateComplete(status, handle, tx, rx):
            if status == .success {
                actions.append(.event(.phyChanged(handle: handle, tx: tx, rx: rx)))
            } else {
                actions.append(.event(.commandFailed(.leSetPHY, status)))
            }
        case .other:
            break
        }
        sendCommands(&actions)
        pump(&actions)
    }

    /// A Command Complete or Command Status for `opcode`; `returnParameters` is nil for a status.
    mutating func finishCommand(
        _ opcode: HCI.Opcode, status: HCIErrorCode, returnParameters: [UInt8]?, _ actions: inout [Action]
    ) {
        guard let (command, _) = outstanding, command.command.opcode == opcode else {
            actions.append(.event(.warning("the controller answered \(opcode), which was not outstanding")))
            return
        }
        outstanding = nil
        switch command.purpose {
        case .initialisation:
            initialisationAnswered(command.command, status: status, returnParameters ?? [], &actions)
        case let .connect(peer):
            if status != .success {
                initiating = nil
                actions.append(.event(.connectionFailed(peer, status)))
                startNextConnection(&actions)
            }
        case .cancelConnect:
            // 0x0C: nothing to cancel any more; the connection complete event already went (or is coming).
            break
        case let .update(handle):
            if status != .success { actions.append(.event(.parameterUpdateFailed(handle: handle, status))) }
        case .scan, .advertising, .other:
            if status != .success { actions.append(.event(.commandFailed(opcode, status))) }
        }
    }

    mutating func initialisationAnswered(
        _ command: HCI.Command, status: HCIErrorCode, _ parameters: [UInt8], _ actions: inout [Action]
    ) {
        guard status == .success else {
            // A controller without LE ACL buffers of its own reports 0 in LE Read Buffer Size; one that
            // does not know the suggested data length command is still usable.
            if case .leWriteSuggestedDefaultDataLength = command {
                nextInitialisationStep(&actions)
                return
            }
            fail(.initialisation(command.opcode, status), &actions)
            return
        }
        var r = ByteReader(parameters.dropFirst(), context: "return parameters of \(command.opcode.name)")
        do {
            switch command {
            case .readLocalVersionInformation:
                partial.hciVersion = try r.readUInt8("HCI version")
                partial.hciRevision = try r.readUInt16("HCI revision")
                _ = try r.readUInt8("LMP version")
                partial.manufacturer = try r.readUInt16("company identifier")
                partial.lmpSubversion = try r.readUInt16("LMP subversion")
            case .readLocalSupportedFeatures:
                let features = try r.readBytes(8, "LMP features")
                guard features[4] & 0x40 != 0 else {
                    fail(.notLowEnergy, &actions)
                    return
                }
            case .readBDAddr:
                partial.publicAddress = try DeviceAddress(littleEndian: r.readBytes(6, "BD_ADDR"))
            case .leReadBufferSize:
                partial.aclBufferSize = Int(try r.readUInt16("LE ACL data packet length"))
                partial.aclBuffers = Int(try r.readUInt8("total LE ACL data packets"))
                if partial.aclBufferSize == 0 || partial.aclBuffers == 0 {
                    // Shared with BR/EDR: ask Read Buffer Size next.
                    initialisationSteps.insert(.readBufferSize, at: 0)
                }
            case .readBufferSize:
                partial.aclBufferSize = Int(try r.readUInt16("ACL data packet length"))
                _ = try r.readUInt8("synchronous data packet length")
                partial.aclBuffers = Int(try r.readUInt16("total ACL data packets"))
                guard partial.aclBufferSize > 0, partial.aclBuffers > 0 else {
                    fail(.initialisation(command.opcode, .memoryCapacityExceeded), &actions)
                    return
                }
            case .leReadLocalSupportedFeatures:
                partial.leFeatures = try r.readUInt64("LE features")
                if let dataLength = configuration.dataLength, partial.leFeatures & (1 << 5) != 0 {
                    initialisationSteps.append(
                        .leWriteSuggestedDefaultDataLength(txOctets: dataLength.octets, txTime: dataLength.time))
                }
                if let random = configuration.randomAddress { initialisationSteps.append(.leSetRandomAddress(random)) }
            default:
                break
            }
        } catch {
            actions.append(.event(.warning("malformed return parameters: \(error)")))
            fail(.initialisation(command.opcode, .unspecifiedError), &actions)
            return
        }
        nextInitialisationStep(&actions)
    }

    mutating func connectionComplete(_ event: HCI.LEConnectionComplete, _ actions: inout [Action]) {
        if event.role == .central {
            let peer = initiating ?? event.peerAddress
            initiating = nil
            cancelling = false
            defer { startNextConnection(&actions) }
            guard event.status == .success else {
                actions.append(.event(.connectionFailed(peer, event.status)))
                return
            }
        } else if event.status != .success {
            // Advertising ended without a connection (directed advertising timeout).
            actions.append(.event(.commandFailed(.leSetAdvertisingEnable, event.status)))
            return
        }
        let link = Link(
            handle: event.handle, role: event.role, peer: event.peerAddress, interval: event.connectionInterval,
            latency: event.peripheralLatency, supervisionTimeout: event.supervisionTimeout, established: now)
        links[event.handle] = link
        linkStates[event.handle] = LinkState()
        actions.append(.event(.connected(link)))
        if let controller {
            if let dataLength = configuration.dataLength, controller.supportsDataLengthExtension {
                enqueue(
                    .leSetDataLength(handle: event.handle, txOctets: dataLength.octets, txTime: dataLength.time),
                    .other, &actions)
            }
            if let phys = configuration.preferredPHYs, controller.supports2MPHY {
                enqueue(.leSetPHY(handle: event.handle, tx: phys, rx: phys), .other, &actions)
            }
        }
    }

    mutating func extendedReport(_ report: HCI.AdvertisingReport, _ actions: inout [Action]) {
        var whole = report
        if let earlier = fragmentedReports.removeValue(forKey: report.address) {
            whole.data = earlier.data + report.data
        }
        if report.incomplete {
            fragmentedReports[report.address] = whole
            return
        }
        actions.append(.event(.advertisement(whole)))
    }

    // MARK: - ACL

    mutating func receiveACL(_ packet: HCI.ACLDataPacket, _ actions: inout [Action]) {
        guard linkStates[packet.handle] != nil else {
            actions.append(.event(.warning("ACL data for unknown link 0x\(String(packet.handle, radix: 16)) dropped")))
            return
        }
        let frame: L2CAP.BasicFrame?
        do {
            // In place: a copy of the link's state would copy the reassembler's buffer for every fragment.
            frame = try linkStates[packet.handle]!.reassembler.push(packet.fragment)
        } catch {
            actions.append(.event(.warning("link 0x\(String(packet.handle, radix: 16)): \(error)")))
            return
        }
        guard let frame else { return }
        switch frame.channel {
        case .att:
            linkStates[packet.handle]?.awaitsATT = false
            actions.append(.event(.att(handle: packet.handle, frame.payload)))
        case .leSignaling:
            signal(frame.payload, on: packet.handle, &actions)
        case .securityManager:
            // No pairing here: answer a Pairing Request or Security Request with Pairing Failed, reason
            // 0x05 Pairing Not Supported (Vol 3 Part H §3.5.5), so the peer does not wait 30 s.
            if let code = frame.payload.first, code == 0x01 || code == 0x0B {
                queueFrame(
                    L2CAP.BasicFrame(channel: .securityManager, payload: [0x05, 0x05]), on: packet.handle, &actions)
            }
        default:
            actions.append(
                .event(.warning("link 0x\(String(packet.handle, radix: 16)): frame on \(frame.channel) dropped")))
        }
    }

    mutating func signal(_ bytes: [UInt8], on handle: UInt16, _ actions: inout [Action]) {
        let command: L2CAP.LESignal
        do {
            command = try L2CAP.LESignal(decoding: bytes)
        } catch {
            actions.append(.event(.warning("link 0x\(String(handle, radix: 16)): \(error)")))
            return
        }
        switch command {
        case let .connectionParameterUpdateRequest(identifier, parameters):
            guard links[handle]?.role == .central else {
                reply(.commandReject(identifier: identifier, reason: 0x0000), on: handle, &actions)
                return
            }
            let accepted = configuration.acceptsParameterRequests && parameters.violation == nil
            reply(.connectionParameterUpdateResponse(identifier: identifier, accepted: accepted), on: handle, &actions)
            if accepted { enqueue(.leConnectionUpdate(handle: handle, parameters), .update(handle), &actions) }
        case let .connectionParameterUpdateResponse(_, accepted):
            if !accepted {
                actions.append(.event(.parameterUpdateFailed(handle: handle, .unacceptableConnectionParameters)))
            }
        case let .commandReject(_, reason):
            actions.append(
                .event(
                    .warning(
                        "link 0x\(String(handle, radix: 16)): the peer rejected a signaling command (reason 0x\(String(reason, radix: 16)))"
                    )))
        case let .other(_, identifier, _):
            reply(.commandReject(identifier: identifier, reason: 0x0000), on: handle, &actions)
        }
    }

    mutating func reply(_ signal: L2CAP.LESignal, on handle: UInt16, _ actions: inout [Action]) {
        queueFrame(L2CAP.BasicFrame(channel: .leSignaling, payload: signal.encoded), on: handle, &actions)
    }

    mutating func queueFrame(_ frame: L2CAP.BasicFrame, on handle: UInt16, _ actions: inout [Action]) {
        guard linkStates[handle] != nil, let controller else { return }
        let packets = HCI.ACLDataPacket.packets(
            carrying: frame, handle: handle, direction: .hostToController,
            maximumDataLength: max(1, controller.aclBufferSize))
        linkStates[handle]!.queue.append(packets)
        pump(&actions)
    }

    /// Sends queued ACL packets while the controller has buffers, one frame's packet at a time per link, in turn.
    mutating func pump(_ actions: inout [Action]) {
        guard aclCredits > 0, !linkStates.isEmpty else { return }
        if linkStates.count == 1, let handle = linkStates.keys.first {
            // One link, the usual case: nothing to take turns with.
            while aclCredits > 0, sendNext(on: handle, &actions) {}
            return
        }
        var handles = linkStates.keys.sorted()
        if let split = handles.firstIndex(where: { $0 > lastServed }) {
            handles = Array(handles[split...] + handles[..<split])
        }
        var progress = true
        while aclCredits > 0, progress {
            progress = false
            for handle in handles where aclCredits > 0 {
                if sendNext(on: handle, &actions) { progress = true }
            }
        }
    }

    /// Sends the next queued packet of link `handle`; false when it has none queued.
    private mutating func sendNext(on handle: UInt16, _ actions: inout [Action]) -> Bool {
        guard let queued = linkStates[handle]?.queuedFrames, queued > 0 else { return false }
        // In place, as in receiveACL: a copy of the state would copy its queue for every packet sent.
        let packet = linkStates[handle]!.takeNextPacket()
        aclCredits -= 1
        lastServed = handle
        actions.append(.send(HCI.H4Packet(packet), about: links[handle]?.peer))
        let limit = configuration.maximumQueuedFrames
        if queued >= limit, linkStates[handle]!.queuedFrames < limit {
            actions.append(.event(.transmitReady(handle: handle)))
        }
        return true
    }
}
