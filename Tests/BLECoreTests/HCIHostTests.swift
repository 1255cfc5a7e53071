import Testing

@testable import BLECore

@Suite struct HCIHostInitialisationTests {
    @Test func initialisesInOrderAndReportsTheController() throws {
        var fake = FakeController()
        fake.initialise()
        #expect(
            fake.commands == [
                .reset, .readLocalVersionInformation, .readLocalSupportedFeatures, .readBDAddr,
                .setEventMask(HCIHost.eventMask), .leSetEventMask(HCIHost.leEventMask), .leReadBufferSize,
                .leReadLocalSupportedFeatures, .leWriteSuggestedDefaultDataLength(txOctets: 251, txTime: 2120),
            ])
        let info = try #require(fake.info)
        #expect(info.publicAddress == fake.publicAddress)
        #expect(info.aclBuffers == 4 && info.aclBufferSize == 27)
        #expect(info.usesExtendedScanning)
        #expect(info.manufacturer == 0x05F1)
        #expect(fake.events == [.ready(info)])
        // LE Meta (bit 61) must be on, or no advertising report or connection complete ever arrives.
        #expect(HCIHost.eventMask & (1 << 61) != 0)
    }

    @Test func aRandomAddressIsSetAndUsed() throws {
        let random = DeviceAddress(0xC0_11_22_33_44_55, kind: .random)
        var fake = FakeController(configuration: .init(randomAddress: random))
        fake.initialise()
        #expect(fake.commands.last == .leSetRandomAddress(random))
        #expect(fake.info?.address == random)
    }

    @Test func legacyScanningWithoutExtendedAdvertisingOrWhenAsked() {
        var old = FakeController { $0.leFeatures = 0 }
        old.initialise()
        #expect(old.info?.usesExtendedScanning == false)
        #expect(!old.commands.contains(.leWriteSuggestedDefaultDataLength(txOctets: 251, txTime: 2120)))
        var forced = FakeController(configuration: .init(scanning: .legacy))
        forced.initialise()
        #expect(forced.info?.usesExtendedScanning == false)
    }

    @Test func aFailedCommandFailsInitialisationWithItsStatus() {
        var fake = FakeController { $0.failing[.leSetEventMask] = .invalidParameters }
        fake.initialise()
        #expect(fake.events == [.failed(.initialisation(.leSetEventMask, .invalidParameters))])
        #expect(fake.host.phase == .failed(.initialisation(.leSetEventMask, .invalidParameters)))
    }

    @Test func aControllerWithoutLowEnergyIsRefused() {
        var fake = FakeController { $0.lmpFeatures = [UInt8](repeating: 0, count: 8) }
        fake.initialise()
        #expect(fake.events == [.failed(.notLowEnergy)])
    }

    @Test func sharedBuffersAreReadWhenTheLEBufferSizeIsZero() {
        var fake = FakeController { $0.aclBufferSize = 0 }
        fake.initialise()
        #expect(fake.commands.contains(.readBufferSize))
        // This fake has no shared buffers either: a host that cannot send data refuses to start.
        #expect(fake.events == [.failed(.initialisation(.readBufferSize, .memoryCapacityExceeded))])
    }

    @Test func anUnansweredCommandTimesOut() {
        var fake = FakeController(configuration: .init(commandTimeout: .seconds(2))) { $0.silent = [.readBDAddr] }
        fake.initialise()
        #expect(fake.host.nextDeadline == .origin.advanced(by: .seconds(2)))
        fake.carryOut(fake.host.tick(at: .origin.advanced(by: .milliseconds(1999))))
        #expect(fake.events.isEmpty)
        fake.carryOut(fake.host.tick(at: .origin.advanced(by: .seconds(2))))
        #expect(fake.events == [.failed(.commandTimeout(.readBDAddr, after: .seconds(2)))])
    }

    @Test func oneCommandAtATimeAsTheControllerAllows() {
        var host = HCIHost()
        let first = host.start(at: .origin)
        #expect(first == [.send(HCI.Command.reset.h4, about: nil)])
        // A second request waits for the credit the reset's Command Complete returns.
        let reply = host.receive(
            HCI.Event.commandComplete(numberOfCommands: 1, opcode: .reset, returnParameters: [0]).h4, at: .origin)
        #expect(reply == [.send(HCI.Command.readLocalVersionInformation.h4, about: nil)])
        // An answer to a command that is not outstanding is a warning, not a crash.
        let stray = host.receive(
            HCI.Event.commandComplete(numberOfCommands: 1, opcode: .leSetScanEnable, returnParameters: [0]).h4,
            at: .origin)
        #expect(stray.count == 1)
        guard case .event(.warning) = stray.first else {
            Issue.record("expected a warning, got \(stray)")
            return
        }
    }
}

@Suite struct HCIHostScanningTests {
    @Test func extendedScanningUsesTheExtendedCommandsAndJoinsFragments() throws {
        var fake = FakeController()
        fake.initialise()
        _ = fake.takeCommands()
        _ = fake.takeEvents()
        fake.carryOut(fake.host.startScanning(at: .origin))
        #expect(
            fake.takeCommands() == [
                .leSetExtendedScanParameters(.init()), .leSetExtendedScanEnable(true, filterDuplicates: false),
            ])
        let address = DeviceAddress(0xC0_00_00_00_00_01, kind: .random)
        fake.deliver(
            .leExtendedAdvertisingReport([
                .init(address: address, data: [0x02, 0x01, 0x06], rssi: -40, incomplete: true)
            ]))
        #expect(fake.events.isEmpty)
        fake.deliver(
            .leExtendedAdvertisingReport([.init(address: address, data: [0x03, 0x09, 0x41, 0x42], rssi: -41)]))
        #expect(
            fake.takeEvents() == [
                .advertisement(.init(address: address, data: [0x02, 0x01, 0x06, 0x03, 0x09, 0x41, 0x42], rssi: -41))
            ])
        fake.carryOut(fake.host.stopScanning(at: .origin))
        #expect(fake.takeCommands() == [.leSetExtendedScanEnable(false, filterDuplicates: false)])
    }

    @Test func legacyReportsCarrySeveralAdvertisersInOneEvent() throws {
        var fake = FakeController { $0.leFeatures = 0 }
        fake.initialise()
        _ = fake.takeCommands()
        _ = fake.takeEvents()
        fake.carryOut(fake.host.startScanning(at: .origin))
        #expect(
            fake.takeCommands() == [.leSetScanParameters(.init()), .leSetScanEnable(true, filterDuplicates: false)])
        let a = HCI.AdvertisingReport(address: DeviceAddress(1), data: [2, 1, 6], rssi: -50)
        let b = HCI.AdvertisingReport(
            address: DeviceAddress(2, kind: .random), data: [], rssi: -70, connectable: false, scannable: false,
            scanResponse: true)  // a legacy SCAN_RSP (type 4) says nothing more about the advertiser
        fake.deliver(.leAdvertisingReport([a, b]))
        #expect(fake.takeEvents() == [.advertisement(a), .advertisement(b)])
    }

    @Test func aRefusedScanEnableIsReported() {
        var fake = FakeController { $0.failing[.leSetExtendedScanEnable] = .commandDisallowed }
        fake.initialise()
        _ = fake.takeEvents()
        fake.carryOut(fake.host.startScanning(at: .origin))
        #expect(fake.takeEvents() == [.commandFailed(.leSetExtendedScanEnable, .commandDisallowed)])
    }
}

@Suite struct HCIHostConnectionTests {
    static let peer = DeviceAddress(0xC0_AA_BB_CC_DD_EE, kind: .random)
    static let parameters = HCI.ConnectionParameters(interval: .milliseconds(15), supervisionTimeout: .seconds(4))

    static func ready(_ setUp: (inout FakeController) -> Void = { _ in }) -> FakeController {
        var fake = FakeController(setUp: setUp)
        fake.initialise()
        _ = fake.takeCommands()
        _ = fake.takeEvents()
        return fake
    }

    @Test func connectsAndSetsTheLinkUp() throws {
        var fake = Self.ready()
        fake.carryOut(fake.host.connect(to: Self.peer, parameters: Self.parameters, at: .origin))
        let commands = fake.takeCommands()
        guard case let .leExtendedCreateConnection(request) = commands.first else {
            Issue.record("expected LE Extended Create Connection, got \(commands)")
            return
        }
        #expect(request.peer == Self.peer && request.parameters == Self.parameters)
        fake.completeConnection(handle: 0x40, peer: Self.peer, enhanced: true)
        let events = fake.takeEvents()
        guard case let .connected(link) = events.first else {
            Issue.record("expected connected, got \(events)")
            return
        }
        #expect(link.handle == 0x40 && link.role == .central && link.peer == Self.peer)
        #expect(link.intervalDuration == .milliseconds(15) && link.supervisionTimeoutDuration == .seconds(4))
        // With Data Length Extension the host asks for 251-octet packets at once.
        #expect(fake.takeCommands() == [.leSetDataLength(handle: 0x40, txOctets: 251, txTime: 2120)])
    }

    @Test func attemptsRunOneAtATime() {
        var fake = Self.ready { $0.leFeatures = 0 }
        let other = DeviceAddress(0x11)
        fake.carryOut(fake.host.connect(to: Self.peer, parameters: Self.parameters, at: .origin))
        fake.carryOut(fake.host.connect(to: other, parameters: Self.parameters, at: .origin))
        #expect(fake.takeCommands().count == 1)
        fake.completeConnection(handle: 0x01, peer: Self.peer, status: .connectionFailedToBeEstablished)
        #expect(fake.takeEvents() == [.connectionFailed(Self.peer, .connectionFailedToBeEstablished)])
        let next = fake.takeCommands()
        guard case let .leCreateConnection(request) = next.first else {
            Issue.record("expected the second attempt, got \(next)")
            return
        }
        #expect(request.peer == other)
    }

    @Test func cancellingAnAttemptInFlightAndOneQueued() {
        var fake = Self.ready()
        let queued = DeviceAddress(0x22)
        fake.carryOut(fake.host.connect(to: Self.peer, parameters: Self.parameters, at: .origin))
        fake.carryOut(fake.host.connect(to: queued, parameters: Self.parameters, at: .origin))
        _ = fake.takeCommands()
        fake.carryOut(fake.host.cancelConnect(to: queued, at: .origin))
        #expect(fake.takeEvents() == [.connectionFailed(queued, .unknownConnectionIdentifier)])
        fake.carryOut(fake.host.cancelConnect(to: Self.peer, at: .origin))
        #expect(fake.takeCommands() == [.leCreateConnectionCancel])
        // The controller ends the attempt with 0x02 Unknown Connection Identifier.
        fake.completeConnection(handle: 0, peer: DeviceAddress(0), status: .unknownConnectionIdentifier)
        #expect(fake.takeEvents() == [.connectionFailed(Self.peer, .unknownConnectionIdentifier)])
    }

    @Test func aRefusedCreateConnectionFailsTheAttemptWithItsStatus() {
        var fake = Self.ready { $0.failing[.leExtendedCreateConnection] = .connectionLimitExceeded }
        fake.carryOut(fake.host.connect(to: Self.peer, parameters: Self.parameters, at: .origin))
        #expect(fake.takeEvents() == [.connectionFailed(Self.peer, .connectionLimitExceeded)])
    }

    @Test func disconnectionEndsTheLinkAndReturnsItsBuffers() {
        var fake = Self.ready()
        fake.carryOut(fake.host.connect(to: Self.peer, parameters: Self.parameters, at: .origin))
        fake.completeConnection(handle: 0x40, peer: Self.peer)
        _ = fake.takeEvents()
        // Four buffers: a 200-byte PDU needs 8 fragments; 4 go now.
        fake.carryOut(fake.host.sendATT([UInt8](repeating: 0xAB, count: 200), on: 0x40, at: .origin))
        #expect(fake.acl.count == 4)
        fake.carryOut(fake.host.disconnect(0x40, at: .origin))
        #expect(fake.takeCommands().last == .disconnect(handle: 0x40, reason: .remoteUserTerminated))
        fake.deliver(.disconnectionComplete(.init(handle: 0x40, reason: .localHostTerminated)))
        #expect(fake.takeEvents() == [.disconnected(handle: 0x40, reason: .localHostTerminated)])
        #expect(fake.host.aclCredits == 4)
        // A PDU for a link that is gone goes nowhere.
        fake.carryOut(fake.host.sendATT([1], on: 0x40, at: .origin))
        #expect(fake.acl.count == 4)
    }

    @Test func everyPacketSaysWhichDeviceItConcerns() {
        var fake = Self.ready()
        fake.carryOut(fake.host.connect(to: Self.peer, parameters: Self.parameters, at: .origin))
        #expect(fake.sent.last?.about == Self.peer, "LE Create Connection names its peer")
        fake.completeConnection(handle: 0x40, peer: Self.peer)
        #expect(fake.receivedAbout == [Self.peer], "the connection complete event concerns the new link's peer")
        fake.sent = []
        fake.carryOut(fake.host.sendATT([0x0A, 0x03, 0x00], on: 0x40, at: .origin))
        fake.carryOut(fake.host.disconnect(0x40, at: .origin))
        #expect(fake.sent.count >= 2 && fake.sent.allSatisfy { $0.about == Self.peer })
        // The disconnection's peer is named although the host forgets the link while handling it.
        fake.receivedAbout = []
        fake.deliver(.disconnectionComplete(.init(handle: 0x40, reason: .localHostTerminated)))
        #expect(fake.receivedAbout == [Self.peer])
        // Scanning and controller set-up concern no one device.
        fake.sent = []
        fake.carryOut(fake.host.startScanning(at: .origin))
        #expect(!fake.sent.isEmpty && fake.sent.allSatisfy { $0.about == nil })
    }
}

@Suite struct HCIHostDataTests {
    static func connected(buffers: UInt8 = 4, links: [UInt16] = [0x40]) -> FakeController {
        var fake = HCIHostConnectionTests.ready { $0.aclBuffers = buffers }
        for (i, handle) in links.enumerated() {
            let peer = DeviceAddress(UInt64(0xC0_00_00_00_00_10 + i), kind: .random)
            fake.carryOut(fake.host.connect(to: peer, parameters: HCIHostConnectionTests.parameters, at: .origin))
            fake.completeConnection(handle: handle, peer: peer)
        }
        _ = fake.takeCommands()
        _ = fake.takeEvents()
        return fake
    }

    @Test func framesAreCutToTheBufferSizeAndSentAsCreditsAllow() throws {
        var fake = Self.connected(buffers: 2)
        let pdu = [0x52] + [UInt8](repeating: 0x11, count: 59)  // 60 bytes + 4 of L2CAP header = 64: 3 fragments
        fake.carryOut(fake.host.sendATT(pdu, on: 0x40, at: .origin))
        #expect(fake.acl.count == 2)
        #expect(fake.acl[0].boundary == .firstNonFlushable && fake.acl[1].boundary == .continuing)
        #expect(fake.acl.allSatisfy { $0.data.count <= 27 })
        fake.returnBuffers(1, on: 0x40)
        #expect(fake.acl.count == 3)
        var reassembler = L2CAP.Reassembler()
        var frame: L2CAP.BasicFrame?
        for packet in fake.acl { frame = try reassembler.push(packet.fragment) ?? frame }
        #expect(frame == .att(pdu))
    }

    @Test func completionsMayWaitOnlyWhileAnATTAnswerIsAwaitedAndNothingElse() {
        var fake = Self.connected(buffers: 1)
        #expect(!fake.host.completionsCanWait, "nothing awaited")
        fake.carryOut(fake.host.sendATT([0x52, 0x03, 0x00, 1], on: 0x40, at: .origin))
        fake.returnBuffers(1, on: 0x40)
        #expect(!fake.host.completionsCanWait, "a write command has no answer")
        fake.carryOut(fake.host.sendATT([0x0A, 0x03, 0x00], on: 0x40, at: .origin))
        #expect(fake.host.completionsCanWait, "a read request is answered")
        fake.returnBuffers(1, on: 0x40)
        #expect(fake.host.completionsCanWait, "its buffer coming back changes nothing")

        // A command waiting for its answer: its events must not wait.
        let scanning = fake.host.startScanning(at: .origin)
        #expect(!fake.host.completionsCanWait)
        fake.carryOut(scanning)
        #expect(fake.host.completionsCanWait)

        // A notification is an ATT PDU too: the host stops holding short packets until it asks again.
        fake.peerSends(.att([0x1B, 0x03, 0x00, 9]), on: 0x40)
        #expect(!fake.host.completionsCanWait)
        fake.carryOut(fake.host.sendATT([0x0A, 0x03, 0x00], on: 0x40, at: .origin))
        fake.returnBuffers(1, on: 0x40)
        fake.peerSends(.att([0x0B, 1]), on: 0x40)
        #expect(!fake.host.completionsCanWait, "the response came")

        // A frame waiting for the controller's buffers needs the completions as they come.
        let long = [0x12, 0x03, 0x00] + [UInt8](repeating: 7, count: 57)  // 64 bytes with L2CAP's header: 3 fragments
        fake.carryOut(fake.host.sendATT(long, on: 0x40, at: .origin))
        #expect(!fake.host.completionsCanWait)
        fake.returnBuffers(1, on: 0x40)
        fake.returnBuffers(1, on: 0x40)
        #expect(fake.acl.suffix(3).map(\.boundary) == [.firstNonFlushable, .continuing, .continuing])
        #expect(fake.host.completionsCanWait, "all of it is out; only the answer is awaited")

        // The link going down ends the wait.
        fake.deliver(.disconnectionComplete(.init(handle: 0x40, reason: .remoteUserTerminated)))
        #expect(!fake.host.completionsCanWait)
    }

    @Test func theRestOfAFragmentedResponseIsWhatTheHostWaitsFor() {
        var fake = Self.connected(buffers: 1)
        fake.carryOut(fake.host.sendATT([0x08, 0x01, 0x00, 0xFF, 0xFF, 0x03, 0x28], on: 0x40, at: .origin))
        fake.returnBuffers(1, on: 0x40)
        #expect(fake.host.completionsCanWait)
        #expect(fake.host.bytesBeforeAnswer == 0, "nothing of the response is in: any packet may be its start")
        // A Read By Type response of 96 bytes, 100 with L2CAP's header, in fragments of 27: 27, 27, 27, 19.
        let response = L2CAP.BasicFrame.att([0x09, 0x15] + [UInt8](repeating: 0x33, count: 94))
        let fragments = HCI.ACLDataPacket.packets(
            carrying: response, handle: 0x40, direction: .controllerToHost, maximumDataLength: 27)
        #expect(fragments.count == 4)
        fake.deliver(HCI.H4Packet(fragments[0]))
        // 73 bytes to come: at least one packet's indicator and ACL header with them.
        #expect(fake.host.bytesBeforeAnswer == 1 + 4 + 73)
        fake.deliver(HCI.H4Packet(fragments[1]))
        #expect(fake.host.bytesBeforeAnswer == 1 + 4 + 46)
        fake.deliver(HCI.H4Packet(fragments[2]))
        fake.deliver(HCI.H4Packet(fragments[3]))
        #expect(!fake.host.completionsCanWait && fake.host.bytesBeforeAnswer == 0, "the response is in")

        // A second link awaiting an answer with nothing of it in: any packet may be its start.
        fake.completeConnection(handle: 0x41, peer: DeviceAddress(0xC0_00_00_00_00_98, kind: .random))
        fake.carryOut(fake.host.sendATT([0x0A, 0x03, 0x00], on: 0x41, at: .origin))
        fake.returnBuffers(1, on: 0x41)
        fake.carryOut(fake.host.sendATT([0x08, 0x01, 0x00, 0xFF, 0xFF, 0x03, 0x28], on: 0x40, at: .origin))
        fake.returnBuffers(1, on: 0x40)
        fake.deliver(HCI.H4Packet(fragments[0]))
        #expect(fake.host.completionsCanWait)
        #expect(fake.host.bytesBeforeAnswer == 0)
    }

    @Test func aCommandAnsweredWithStatusLetsItsStatusWaitForItsEvent() {
        var fake = Self.connected()
        // LE Create Connection: its Command Status may wait for LE Connection Complete.
        let peer = DeviceAddress(0xC0_00_00_00_00_99, kind: .random)
        let connecting = fake.host.connect(to: peer, parameters: HCIHostConnectionTests.parameters, at: .origin)
        #expect(fake.host.completionsCanWait)
        fake.carryOut(connecting)
        #expect(!fake.host.completionsCanWait, "the status is in; nothing else is awaited")
        fake.completeConnection(handle: 0x41, peer: peer)
        #expect(!fake.host.completionsCanWait)

        // A command answered with Command Complete is needed at once, and so is one queued behind another.
        let scanning = fake.host.startScanning(at: .origin)
        #expect(!fake.host.completionsCanWait)
        fake.carryOut(scanning)
        let disconnecting = fake.host.disconnect(0x41, at: .origin)
        #expect(fake.host.completionsCanWait)
        let second = fake.host.disconnect(0x40, at: .origin)
        #expect(!fake.host.completionsCanWait, "a Disconnect waits for the first one's status")
        fake.carryOut(disconnecting + second)
        #expect(!fake.host.completionsCanWait)
        #expect(HCI.Command.disconnect(handle: 0x40, reason: .remoteUserTerminated).completesWithItsOwnEvent)
        #expect(!HCI.Command.leSetScanEnable(true, filterDuplicates: false).completesWithItsOwnEvent)
    }

    @Test func theAnsweredOpcodesAreTheRequestsAndTheIndication() {
        let answered = (0...0xFF).map { ATT.Opcode(rawValue: UInt8($0)) }.filter(\.isAnswered)
        #expect(
            answered.map(\.rawValue) == [0x02, 0x04, 0x06, 0x08, 0x0A, 0x0C, 0x0E, 0x10, 0x12, 0x16, 0x18, 0x1D, 0x20])
        #expect(answered.allSatisfy { $0.name.hasSuffix("Request") || $0 == .handleValueIndication })
    }

    @Test func linksTakeTurnsForBuffers() {
        var fake = Self.connected(buffers: 2, links: [0x40, 0x41])
        fake.carryOut(fake.host.sendATT([UInt8](repeating: 1, count: 100), on: 0x40, at: .origin))
        fake.carryOut(fake.host.sendATT([UInt8](repeating: 2, count: 10), on: 0x41, at: .origin))
        #expect(fake.acl.map(\.handle) == [0x40, 0x40])
        fake.returnBuffers(2, on: 0x40)
        // The short frame on 0x41 does not wait for the long one to finish.
        #expect(fake.acl.map(\.handle) == [0x40, 0x40, 0x41, 0x40])
    }

    @Test func aFullLinkSaysSoAndTellsWhenItHasRoom() {
        var fake = FakeController(configuration: .init(maximumQueuedFrames: 2)) { $0.aclBuffers = 1 }
        fake.initialise()
        fake.carryOut(
            fake.host.connect(to: DeviceAddress(1), parameters: HCIHostConnectionTests.parameters, at: .origin))
        fake.completeConnection(handle: 0x40, peer: DeviceAddress(1))
        _ = fake.takeEvents()
        for _ in 0..<3 { fake.carryOut(fake.host.sendATT([0x52, 1, 0], on: 0x40, at: .origin)) }
        #expect(!fake.host.canQueue(on: 0x40))
        fake.returnBuffers(1, on: 0x40)
        #expect(fake.host.canQueue(on: 0x40))
        #expect(fake.takeEvents() == [.transmitReady(handle: 0x40)])
    }

    @Test func attFromThePeerIsReassembledAndBrokenFragmentsAreWarnings() {
        var fake = Self.connected()
        let pdu = [0x1B, 0x03, 0x00] + [UInt8](repeating: 7, count: 100)
        fake.peerSends(.att(pdu), on: 0x40, fragmentSize: 27)
        #expect(fake.takeEvents() == [.att(handle: 0x40, pdu)])
        // A continuation with no start, then data for a link that does not exist: both dropped with a warning.
        fake.deliver(HCI.H4Packet(HCI.ACLDataPacket(handle: 0x40, boundary: .continuing, data: [1, 2, 3])))
        fake.deliver(HCI.H4Packet(HCI.ACLDataPacket(handle: 0x99, boundary: .firstFlushable, data: [1, 0, 4, 0, 1])))
        let warnings = fake.takeEvents()
        #expect(warnings.count == 2)
        #expect(warnings.allSatisfy { if case .warning = $0 { true } else { false } })
        // The link still works.
        fake.peerSends(.att([0x0A, 0x03, 0x00]), on: 0x40)
        #expect(fake.takeEvents() == [.att(handle: 0x40, [0x0A, 0x03, 0x00])])
    }

    @Test func pairingIsAnsweredWithPairingNotSupported() throws {
        var fake = Self.connected()
        fake.peerSends(L2CAP.BasicFrame(channel: .securityManager, payload: [0x0B, 0x01]), on: 0x40)
        let frame = try L2CAP.BasicFrame(decoding: fake.acl.last!.data)
        #expect(frame == L2CAP.BasicFrame(channel: .securityManager, payload: [0x05, 0x05]))
    }
}

@Suite struct HCIHostParameterTests {
    @Test func aPeripheralsUpdateRequestIsGrantedWhenValid() throws {
        var fake = HCIHostDataTests.connected()
        let wanted = HCI.ConnectionParameters(intervalMin: 24, intervalMax: 40, latency: 0, supervisionTimeout: 500)
        let request = L2CAP.LESignal.connectionParameterUpdateRequest(identifier: 7, wanted)
        fake.peerSends(L2CAP.BasicFrame(channel: .leSignaling, payload: request.encoded), on: 0x40)
        let response = try L2CAP.LESignal(decoding: L2CAP.BasicFrame(decoding: fake.acl.last!.data).payload)
        #expect(response == .connectionParameterUpdateResponse(identifier: 7, accepted: true))
        #expect(fake.takeCommands() == [.leConnectionUpdate(handle: 0x40, wanted)])
        fake.deliver(
            .leConnectionUpdateComplete(.success, handle: 0x40, interval: 40, latency: 0, supervisionTimeout: 500))
        let events = fake.takeEvents()
        guard case let .parametersChanged(link) = events.first else {
            Issue.record("expected parametersChanged, got \(events)")
            return
        }
        #expect(link.interval == 40 && link.supervisionTimeout == 500)
    }

    @Test func anInvalidRequestIsRejected() throws {
        var fake = HCIHostDataTests.connected()
        // A timeout shorter than (1 + latency) × interval × 2 breaks the spec.
        let wanted = HCI.ConnectionParameters(intervalMin: 400, intervalMax: 400, latency: 4, supervisionTimeout: 100)
        #expect(wanted.violation != nil)
        let request = L2CAP.LESignal.connectionParameterUpdateRequest(identifier: 9, wanted)
        fake.peerSends(L2CAP.BasicFrame(channel: .leSignaling, payload: request.encoded), on: 0x40)
        let response = try L2CAP.LESignal(decoding: L2CAP.BasicFrame(decoding: fake.acl.last!.data).payload)
        #expect(response == .connectionParameterUpdateResponse(identifier: 9, accepted: false))
        #expect(fake.takeCommands().isEmpty)
    }

    @Test func theLinkLayerRequestIsRepliedTo() {
        var fake = HCIHostDataTests.connected()
        let wanted = HCI.ConnectionParameters(intervalMin: 6, intervalMax: 12, latency: 0, supervisionTimeout: 300)
        fake.deliver(.leRemoteConnectionParameterRequest(handle: 0x40, wanted))
        #expect(fake.takeCommands() == [.leRemoteConnectionParameterRequestReply(handle: 0x40, wanted)])
        let bad = HCI.ConnectionParameters(intervalMin: 2, intervalMax: 1, latency: 0, supervisionTimeout: 300)
        fake.deliver(.leRemoteConnectionParameterRequest(handle: 0x40, bad))
        #expect(
            fake.takeCommands() == [
                .leRemoteConnectionParameterRequestNegativeReply(
                    handle: 0x40, reason: .unacceptableConnectionParameters)
            ])
    }

    @Test func theCentralUpdatesAndAFailureIsReported() {
        var fake = HCIHostDataTests.connected()
        let wanted = HCI.ConnectionParameters(interval: .milliseconds(30), supervisionTimeout: .seconds(2))
        fake.carryOut(fake.host.updateParameters(wanted, on: 0x40, at: .origin))
        #expect(fake.takeCommands() == [.leConnectionUpdate(handle: 0x40, wanted)])
        fake.deliver(
            .leConnectionUpdateComplete(
                .unsupportedFeature, handle: 0x40, interval: 0, latency: 0, supervisionTimeout: 0))
        #expect(fake.takeEvents() == [.parameterUpdateFailed(handle: 0x40, .unsupportedFeature)])
    }

    @Test func aPeripheralAsksThroughLESignaling() throws {
        var fake = HCIHostConnectionTests.ready()
        fake.completeConnection(handle: 0x41, peer: DeviceAddress(5), role: .peripheral)
        _ = fake.takeCommands()
        let wanted = HCI.ConnectionParameters(interval: .milliseconds(15), supervisionTimeout: .seconds(4))
        fake.carryOut(fake.host.updateParameters(wanted, on: 0x41, at: .origin))
        #expect(fake.takeCommands().isEmpty)
        let signal = try L2CAP.LESignal(decoding: L2CAP.BasicFrame(decoding: fake.acl.last!.data).payload)
        #expect(signal == .connectionParameterUpdateRequest(identifier: 1, wanted))
    }

    @Test func dataLengthAndPHYChangesAreReported() {
        var fake = HCIHostDataTests.connected()
        fake.carryOut(fake.host.setPHY(tx: .le2M, rx: .le2M, on: 0x40, at: .origin))
        #expect(fake.takeCommands() == [.leSetPHY(handle: 0x40, tx: .le2M, rx: .le2M)])
        fake.deliver(.lePHYUpdateComplete(.success, handle: 0x40, tx: 2, rx: 2))
        fake.deliver(
            .leDataLengthChange(handle: 0x40, maxTxOctets: 251, maxTxTime: 2120, maxRxOctets: 251, maxRxTime: 2120))
        #expect(
            fake.takeEvents() == [
                .phyChanged(handle: 0x40, tx: 2, rx: 2), .dataLengthChanged(handle: 0x40, txOctets: 251, rxOctets: 251),
            ])
    }
}

@Suite struct HCIHostAdvertisingTests {
    @Test func advertisesAndAcceptsACentral() {
        var fake = HCIHostConnectionTests.ready()
        fake.carryOut(
            fake.host.startAdvertising(
                interval: .milliseconds(20), data: [2, 1, 6], scanResponse: [3, 9, 0x41, 0x42], at: .origin))
        let commands = fake.takeCommands()
        #expect(commands.count == 5)
        #expect(commands.first == .leSetAdvertisingEnable(false) && commands.last == .leSetAdvertisingEnable(true))
        #expect(commands.contains(.leSetAdvertisingData([2, 1, 6])))
        guard case let .leSetAdvertisingParameters(parameters) = commands[1] else {
            Issue.record("expected parameters, got \(commands)")
            return
        }
        #expect(parameters.intervalMin == 32 && parameters.kind == .connectableUndirected)
        fake.completeConnection(handle: 0x42, peer: DeviceAddress(9), role: .peripheral)
        let events = fake.takeEvents()
        guard case let .connected(link) = events.first else {
            Issue.record("expected connected, got \(events)")
            return
        }
        #expect(link.role == .peripheral)
    }
}

@Suite struct HCIHostRobustnessTests {
    /// Whatever bytes arrive, the host never traps: it warns and carries on.
    @Test func randomPacketsNeverTrap() {
        var random = SeededRandom(seed: 8, stream: "hci-host-fuzz")
        var fake = HCIHostDataTests.connected()
        for _ in 0..<20_000 {
            let type: HCI.PacketType = random.next() % 2 == 0 ? .event : .aclData
            var body = (0..<Int(random.next() % 40)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            if type == .aclData, body.count >= 2 { body[0] = 0x40; body[1] &= 0x30 }
            if type == .event, body.count >= 2 {
                if random.next() % 2 == 0 { body[0] = 0x3E }
                body[1] = UInt8(body.count - 2)
            }
            fake.deliver(HCI.H4Packet(type: type, body: body))
        }
        #expect(fake.host.phase != .idle)
    }
}

@Suite struct HCICodecTests {
    static let commands: [HCI.Command] = [
        .reset, .setEventMask(HCIHost.eventMask), .readLocalVersionInformation, .readLocalSupportedFeatures,
        .readBufferSize, .readBDAddr, .leSetEventMask(HCIHost.leEventMask), .leReadBufferSize,
        .leReadLocalSupportedFeatures, .leSetRandomAddress(DeviceAddress(0xC1_22_33_44_55_66, kind: .random)),
        .leSetAdvertisingParameters(.init(interval: .milliseconds(100), ownAddressKind: .random)),
        .leSetAdvertisingData([2, 1, 6]), .leSetScanResponseData([]), .leSetAdvertisingEnable(true),
        .leSetScanParameters(.init(active: false, interval: 0x60, window: 0x30)),
        .leSetScanEnable(true, filterDuplicates: true),
        .leCreateConnection(
            .init(
                peer: DeviceAddress(0x1234, kind: .random),
                parameters: .init(interval: .milliseconds(30), supervisionTimeout: .seconds(1)))),
        .leCreateConnectionCancel,
        .leConnectionUpdate(
            handle: 0x40,
            .init(intervalMin: 6, intervalMax: 12, latency: 1, supervisionTimeout: 100, minCELength: 2, maxCELength: 4)),
        .leRemoteConnectionParameterRequestReply(
            handle: 1, .init(intervalMin: 6, intervalMax: 6, supervisionTimeout: 100)),
        .leRemoteConnectionParameterRequestNegativeReply(handle: 1, reason: .unacceptableConnectionParameters),
        .leSetDataLength(handle: 0x40, txOctets: 251, txTime: 2120),
        .leWriteSuggestedDefaultDataLength(txOctets: 251, txTime: 2120),
        .leSetPHY(handle: 0x40, tx: .le2M, rx: [.le1M, .le2M]),
        .leSetExtendedScanParameters(.init()), .leSetExtendedScanEnable(false, filterDuplicates: false),
        .leExtendedCreateConnection(
            .init(
                peer: DeviceAddress(0xABCDEF),
                parameters: .init(interval: .milliseconds(15), supervisionTimeout: .seconds(4)))),
        .disconnect(handle: 0x40, reason: .remoteUserTerminated),
    ]

    @Test(arguments: commands) func everyCommandDecodesToItself(_ command: HCI.Command) throws {
        let h4 = command.h4
        let decoded = try HCI.Command(decoding: HCI.CommandPacket(decoding: h4.body))
        #expect(decoded == command)
        #expect(try HCI.H4Packet(decoding: h4.encoded) == h4)
    }

    /// Byte layouts from the Core specification (Vol 4 Part E §7), written out by hand.
    @Test func knownEncodings() {
        #expect(HCI.Command.reset.h4.encoded == [0x01, 0x03, 0x0C, 0x00])
        #expect(
            HCI.Command.leSetScanEnable(true, filterDuplicates: false).h4.encoded == [
                0x01, 0x0C, 0x20, 0x02, 0x01, 0x00,
            ])
        #expect(
            HCI.Command.disconnect(handle: 0x0040, reason: .remoteUserTerminated).h4.encoded
                == [0x01, 0x06, 0x04, 0x03, 0x40, 0x00, 0x13])
        #expect(HCI.Command.leSetAdvertisingData([2, 1, 6]).packet.parameters.count == 32)
        // LE Create Connection has 25 parameter bytes, the extended form 26 for one PHY.
        let request = HCI.CreateConnection(
            peer: DeviceAddress(1), parameters: .init(interval: .milliseconds(15), supervisionTimeout: .seconds(4)))
        #expect(HCI.Command.leCreateConnection(request).packet.parameters.count == 25)
        #expect(HCI.Command.leExtendedCreateConnection(request).packet.parameters.count == 26)
        #expect(HCI.Command.leSetExtendedScanParameters(.init()).packet.parameters.count == 8)
    }

    @Test func eventsDecodeToThemselves() throws {
        let events: [HCI.Event] = [
            .commandComplete(numberOfCommands: 1, opcode: .reset, returnParameters: [0]),
            .commandStatus(.success, numberOfCommands: 1, opcode: .leCreateConnection),
            .disconnectionComplete(.init(handle: 0x40, reason: .remotePowerOff)),
            .numberOfCompletedPackets([(0x40, 2), (0x41, 1)]),
            .hardwareError(3), .dataBufferOverflow(linkType: 1),
            .leAdvertisingReport([
                .init(address: DeviceAddress(1), data: [2, 1, 6], rssi: -3),
                .init(
                    address: DeviceAddress(2, kind: .random), data: [], rssi: -90, connectable: false, scannable: false),
            ]),
            .leExtendedAdvertisingReport([.init(address: DeviceAddress(3), data: [1, 2], rssi: -9, truncated: true)]),
            .leConnectionUpdateComplete(.success, handle: 1, interval: 24, latency: 0, supervisionTimeout: 72),
            .leRemoteConnectionParameterRequest(
                handle: 1, .init(intervalMin: 6, intervalMax: 9, supervisionTimeout: 70)),
            .leDataLengthChange(handle: 1, maxTxOctets: 251, maxTxTime: 2120, maxRxOctets: 27, maxRxTime: 328),
            .lePHYUpdateComplete(.success, handle: 1, tx: 2, rx: 1),
        ]
        for event in events {
            let decoded = try HCI.Event(decoding: HCI.EventPacket(decoding: event.packet.encoded))
            #expect(decoded == event)
        }
    }

    @Test func signalingRoundTrips() throws {
        let signals: [L2CAP.LESignal] = [
            .commandReject(identifier: 1, reason: 0),
            .connectionParameterUpdateRequest(
                identifier: 2, .init(intervalMin: 6, intervalMax: 8, latency: 0, supervisionTimeout: 100)),
            .connectionParameterUpdateResponse(identifier: 3, accepted: false),
        ]
        for signal in signals { #expect(try L2CAP.LESignal(decoding: signal.encoded) == signal) }
        // Core 5.4 Vol 3 Part A §4.20: code 0x12, identifier, length 8, then four u16s.
        #expect(
            signals[1].encoded == [0x12, 0x02, 0x08, 0x00, 0x06, 0x00, 0x08, 0x00, 0x00, 0x00, 0x64, 0x00])
    }
}
