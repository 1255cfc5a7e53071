extension HCI {
    /// One advertising report, from LE Advertising Report (§7.7.65.2) or LE Extended Advertising Report
    /// (§7.7.65.13), in one shape.
    public struct AdvertisingReport: Hashable, Sendable {
        public var address: DeviceAddress
        /// The AD structures' bytes (not parsed here: a board's malformed data must not lose the report).
        public var data: [UInt8]
        /// dBm; 127 means not available.
        public var rssi: Int8
        public var connectable: Bool
        public var scannable: Bool
        public var directed: Bool
        /// A SCAN_RSP to this host's scan request rather than the advertisement itself.
        public var scanResponse: Bool
        /// Extended reports only: more data of this advertisement follows in another report (data status 0b01).
        public var incomplete: Bool
        /// Extended reports only: the controller gave up on the rest (data status 0b10).
        public var truncated: Bool

        public init(
            address: DeviceAddress, data: [UInt8], rssi: Int8, connectable: Bool = true, scannable: Bool = true,
            directed: Bool = false, scanResponse: Bool = false, incomplete: Bool = false, truncated: Bool = false
        ) {
            self.address = address
            self.data = data
            self.rssi = rssi
            self.connectable = connectable
            self.scannable = scannable
            self.directed = directed
            self.scanResponse = scanResponse
            self.incomplete = incomplete
            self.truncated = truncated
        }

        /// The legacy event type (§7.7.65.2): ADV_IND 0, ADV_DIRECT_IND 1, ADV_SCAN_IND 2, ADV_NONCONN_IND 3,
        /// SCAN_RSP 4.
        var legacyEventType: UInt8 {
            if scanResponse { return 4 }
            if connectable { return directed ? 1 : 0 }
            return scannable ? 2 : 3
        }

        init(legacyEventType type: UInt8, address: DeviceAddress, data: [UInt8], rssi: Int8) {
            self.init(
                address: address, data: data, rssi: rssi, connectable: type <= 1, scannable: type == 0 || type == 2,
                directed: type == 1, scanResponse: type == 4)
        }

        /// The extended event type bits (§7.7.65.13); legacy PDUs set bit 4.
        var extendedEventType: UInt16 {
            var bits: UInt16 = 0
            if connectable { bits |= 0x01 }
            if scannable { bits |= 0x02 }
            if directed { bits |= 0x04 }
            if scanResponse { bits |= 0x08 }
            if incomplete { bits |= 0x20 } else if truncated { bits |= 0x40 }
            return bits
        }
    }

    /// The events blerig's host understands, decoded (Core 5.4 Vol 4 Part E §7.7). Anything else stays an
    /// ``EventPacket`` in ``other(_:)``: an unknown event never fails the host.
    public enum Event: Hashable, Sendable {
        /// A command finished: the controller may take `numberOfCommands` more; `returnParameters` start with
        /// the status for most commands.
        case commandComplete(numberOfCommands: UInt8, opcode: Opcode, returnParameters: [UInt8])
        /// A command was accepted (status 0) or refused; its outcome comes in a later event.
        case commandStatus(HCIErrorCode, numberOfCommands: UInt8, opcode: Opcode)
        case disconnectionComplete(DisconnectionComplete)
        /// ACL buffers freed per connection handle: the host may send that many more packets.
        case numberOfCompletedPackets([(handle: UInt16, count: UInt16)])
        case hardwareError(UInt8)
        case dataBufferOverflow(linkType: UInt8)
        /// LE Connection Complete or LE Enhanced Connection Complete (``LEConnectionComplete/enhanced``).
        case leConnectionComplete(LEConnectionComplete)
        case leAdvertisingReport([AdvertisingReport])
        case leExtendedAdvertisingReport([AdvertisingReport])
        case leConnectionUpdateComplete(
            HCIErrorCode, handle: UInt16, interval: UInt16, latency: UInt16, supervisionTimeout: UInt16)
        /// The peer asked for new parameters through the link layer; the host must reply (§7.7.65.6).
        case leRemoteConnectionParameterRequest(handle: UInt16, ConnectionParameters)
        case leDataLengthChange(
            handle: UInt16, maxTxOctets: UInt16, maxTxTime: UInt16, maxRxOctets: UInt16, maxRxTime: UInt16)
        case lePHYUpdateComplete(HCIErrorCode, handle: UInt16, tx: UInt8, rx: UInt8)
        case other(EventPacket)

        public static func == (a: Event, b: Event) -> Bool { a.packet == b.packet }
        public func hash(into hasher: inout Hasher) { hasher.combine(packet) }

        /// Decodes an event packet. Known events with malformed parameters throw; unknown ones become ``other(_:)``.
        public init(decoding packet: EventPacket) throws(DecodingError) {
            var r = ByteReader(packet.parameters, context: packet.code.decodingContext)
            switch packet.code {
            case .commandComplete:
                let count = try r.readUInt8("Num_HCI_Command_Packets")
                let opcode = Opcode(rawValue: try r.readUInt16("command opcode"))
                self = .commandComplete(numberOfCommands: count, opcode: opcode, returnParameters: r.readRemaining())
                return
            case .commandStatus:
                let status = HCIErrorCode(rawValue: try r.readUInt8("status"))
                let count = try r.readUInt8("Num_HCI_Command_Packets")
                self = .commandStatus(
                    status, numberOfCommands: count, opcode: Opcode(rawValue: try r.readUInt16("command opcode")))
            case .disconnectionComplete:
                self = .disconnectionComplete(try DisconnectionComplete(event: packet))
                return
            case .numberOfCompletedPackets:
                let count = Int(try r.readUInt8("Num_Handles"))
                var entries: [(handle: UInt16, count: UInt16)] = []
                for _ in 0..<count {
                    entries.append(
                        (try r.readUInt16("connection handle") & 0x0FFF, try r.readUInt16("Num_Completed_Packets")))
                }
                self = .numberOfCompletedPackets(entries)
            case .hardwareError: self = .hardwareError(try r.readUInt8("hardware code"))
            case .dataBufferOverflow: self = .dataBufferOverflow(linkType: try r.readUInt8("link type"))
            case .leMeta:
                guard let subevent = packet.leSubevent else {
                    throw .truncated(context: r.context, field: "subevent code", needed: 1, available: 0, at: 0)
                }
                _ = try r.readUInt8("subevent code")
                switch subevent {
                case .connectionComplete, .enhancedConnectionComplete:
                    self = .leConnectionComplete(try LEConnectionComplete(event: packet))
                    return
                case .advertisingReport:
                    self = .leAdvertisingReport(try Self.legacyReports(&r))
                case .extendedAdvertisingReport:
                    self = .leExtendedAdvertisingReport(try Self.extendedReports(&r))
                case .connectionUpdateComplete:
                    self = .leConnectionUpdateComplete(
                        HCIErrorCode(rawValue: try r.readUInt8("status")), handle: try r.readUInt16("handle") & 0x0FFF,
                        interval: try r.readUInt16("connection interval"),
                        latency: try r.readUInt16("peripheral latency"),
                        supervisionTimeout: try r.readUInt16("supervision timeout"))
                case .remoteConnectionParameterRequest:
                    let handle = try r.readUInt16("handle") & 0x0FFF
                    self = .leRemoteConnectionParameterRequest(
                        handle: handle, try ConnectionParameters.read(from: &r, eventLengths: false))
                case .dataLengthChange:
                    self = .leDataLengthChange(
                        handle: try r.readUInt16("handle") & 0x0FFF, maxTxOctets: try r.readUInt16("max tx octets"),
                        maxTxTime: try r.readUInt16("max tx time"), maxRxOctets: try r.readUInt16("max rx octets"),
                        maxRxTime: try r.readUInt16("max rx time"))
                case .phyUpdateComplete:
                    self = .lePHYUpdateComplete(
                        HCIErrorCode(rawValue: try r.readUInt8("status")), handle: try r.readUInt16("handle") & 0x0FFF,
                        tx: try r.readUInt8("tx PHY"), rx: try r.readUInt8("rx PHY"))
                default:
                    self = .other(packet)
                    return
                }
            default:
                self = .other(packet)
                return
            }
            try r.expectEnd()
        }

        private static func legacyReports(_ r: inout ByteReader) throws(DecodingError) -> [AdvertisingReport] {
            // §7.7.65.2 lays the reports out field by field: all event types, then all address types, ...
            let count = Int(try r.readUInt8("Num_Reports"))
            var types: [UInt8] = []
            var kinds: [UInt8] = []
            var addresses: [[UInt8]] = []
            var lengths: [Int] = []
            var data: [[UInt8]] = []
            for _ in 0..<count { types.append(try r.readUInt8("event type")) }
            for _ in 0..<count { kinds.append(try r.readUInt8("address type")) }
            for _ in 0..<count { addresses.append(try r.readBytes(6, "address")) }
            for _ in 0..<count { lengths.append(Int(try r.readUInt8("data length"))) }
            for length in lengths { data.append(try r.readBytes(length, "data")) }
            var reports: [AdvertisingReport] = []
            for i in 0..<count {
                let rssi = try r.readInt8("RSSI")
                let address = try DeviceAddress(
                    littleEndian: addresses[i], kind: kinds[i] & 0x01 == 0 ? .public : .random)
                reports.append(
                    AdvertisingReport(legacyEventType: types[i], address: address, data: data[i], rssi: rssi))
            }
            return reports
        }

        private static func extendedReports(_ r: inout ByteReader) throws(DecodingError) -> [AdvertisingReport] {
            let count = Int(try r.readUInt8("Num_Reports"))
            var reports: [AdvertisingReport] = []
            for _ in 0..<count {
                let type = try r.readUInt16("event type")
                let kind = try r.readUInt8("address type")
                let address = try DeviceAddress(
                    littleEndian: r.readBytes(6, "address"), kind: kind & 0x01 == 0 ? .public : .random)
                _ = try r.readUInt8("primary PHY")
                _ = try r.readUInt8("secondary PHY")
                _ = try r.readUInt8("advertising SID")
                _ = try r.readInt8("TX power")
                let rssi = try r.readInt8("RSSI")
                _ = try r.readUInt16("periodic advertising interval")
                _ = try r.readUInt8("direct address type")
                _ = try r.readBytes(6, "direct address")
                let length = Int(try r.readUInt8("data length"))
                let data = try r.readBytes(length, "data")
                let status = (type >> 5) & 0x03
                reports.append(
                    AdvertisingReport(
                        address: address, data: data, rssi: rssi, connectable: type & 0x01 != 0,
                        scannable: type & 0x02 != 0, directed: type & 0x04 != 0, scanResponse: type & 0x08 != 0,
                        incomplete: status == 1, truncated: status == 2))
            }
            return reports
        }

        /// The event as a packet (for a test's fake controller and for captures).
        public var packet: EventPacket {
            var w = ByteWriter(capacity: 32)
            switch self {
            case let .commandComplete(count, opcode, returnParameters):
                w.write(count)
                w.write(opcode.rawValue)
                w.write(contentsOf: returnParameters)
                return EventPacket(code: .commandComplete, parameters: w.bytes)
            case let .commandStatus(status, count, opcode):
                w.write(status.rawValue)
                w.write(count)
                w.write(opcode.rawValue)
                return EventPacket(code: .commandStatus, parameters: w.bytes)
            case let .disconnectionComplete(event): return event.event
            case let .numberOfCompletedPackets(entries):
                w.write(UInt8(entries.count))
                for entry in entries {
                    w.write(entry.handle)
                    w.write(entry.count)
                }
                return EventPacket(code: .numberOfCompletedPackets, parameters: w.bytes)
            case let .hardwareError(code): return EventPacket(code: .hardwareError, parameters: [code])
            case let .dataBufferOverflow(linkType):
                return EventPacket(code: .dataBufferOverflow, parameters: [linkType])
            case let .leConnectionComplete(event): return event.event
            case let .leAdvertisingReport(reports):
                w.write(LESubevent.advertisingReport.rawValue)
                w.write(UInt8(reports.count))
                for report in reports { w.write(report.legacyEventType) }
                for report in reports { w.write(report.address.kind.rawValue) }
                for report in reports { w.write(contentsOf: report.address.littleEndianBytes) }
                for report in reports { w.write(UInt8(report.data.count)) }
                for report in reports { w.write(contentsOf: report.data) }
                for report in reports { w.write(report.rssi) }
            case let .leExtendedAdvertisingReport(reports):
                w.write(LESubevent.extendedAdvertisingReport.rawValue)
                w.write(UInt8(reports.count))
                for report in reports {
                    w.write(report.extendedEventType)
                    w.write(report.address.kind.rawValue)
                    w.write(contentsOf: report.address.littleEndianBytes)
                    w.write(UInt8(1))  // primary PHY: LE 1M
                    w.write(UInt8(0))  // no secondary PHY
                    w.write(UInt8(0xFF))  // no ADI field
                    w.write(Int8(127))  // TX power not available
                    w.write(report.rssi)
                    w.write(UInt16(0))
                    w.write(UInt8(0))
                    w.write(contentsOf: [UInt8](repeating: 0, count: 6))
                    w.write(UInt8(report.data.count))
                    w.write(contentsOf: report.data)
                }
            case let .leConnectionUpdateComplete(status, handle, interval, latency, timeout):
                w.write(LESubevent.connectionUpdateComplete.rawValue)
                w.write(status.rawValue)
                w.write(handle)
                w.write(interval)
                w.write(latency)
                w.write(timeout)
            case let .leRemoteConnectionParameterRequest(handle, parameters):
                w.write(LESubevent.remoteConnectionParameterRequest.rawValue)
                w.write(handle)
                parameters.write(to: &w, eventLengths: false)
            case let .leDataLengthChange(handle, txOctets, txTime, rxOctets, rxTime):
                w.write(LESubevent.dataLengthChange.rawValue)
                for value in [handle, txOctets, txTime, rxOctets, rxTime] { w.write(value) }
            case let .lePHYUpdateComplete(status, handle, tx, rx):
                w.write(LESubevent.phyUpdateComplete.rawValue)
                w.write(status.rawValue)
                w.write(handle)
                w.write(tx)
                w.write(rx)
            case let .other(packet): return packet
            }
            return EventPacket(code: .leMeta, parameters: w.bytes)
        }

        public var h4: H4Packet { H4Packet(packet) }
    }
}
