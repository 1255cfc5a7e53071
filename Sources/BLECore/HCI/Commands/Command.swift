extension HCI {
    /// An HCI Command packet (Core 5.4 Vol 4 Part E §5.4.1): opcode u16, parameter length u8, parameters.
    public struct CommandPacket: Hashable, Sendable, CustomStringConvertible {
        public var opcode: Opcode
        public var parameters: [UInt8]

        public init(opcode: Opcode, parameters: [UInt8] = []) {
            precondition(parameters.count <= 255, "HCI command parameters hold at most 255 bytes")
            self.opcode = opcode
            self.parameters = parameters
        }

        /// Decodes exactly one command (without an H4 indicator).
        public init(decoding bytes: some Collection<UInt8>) throws(DecodingError) {
            var reader = ByteReader(bytes, context: "HCI command packet")
            opcode = Opcode(rawValue: try reader.readUInt16("opcode"))
            let length = Int(try reader.readUInt8("parameter total length"))
            parameters = try reader.readBytes(length, "parameters")
            try reader.expectEnd()
        }

        public var encoded: [UInt8] {
            [UInt8(opcode.rawValue & 0xFF), UInt8(opcode.rawValue >> 8), UInt8(parameters.count)] + parameters
        }

        /// `command 0x0C03 (Reset) `.
        public var description: String { "command \(opcode) \(parameters.hexString)" }
    }

    /// Connection parameters as HCI carries them (Core 5.4 Vol 4 Part E §7.8.12): intervals in 1.25 ms units,
    /// latency in connection events, supervision timeout in 10 ms units, connection event lengths in 0.625 ms.
    public struct ConnectionParameters: Hashable, Sendable, CustomStringConvertible {
        public var intervalMin: UInt16
        public var intervalMax: UInt16
        public var latency: UInt16
        public var supervisionTimeout: UInt16
        public var minCELength: UInt16
        public var maxCELength: UInt16

        public init(
            intervalMin: UInt16, intervalMax: UInt16, latency: UInt16 = 0, supervisionTimeout: UInt16,
            minCELength: UInt16 = 0, maxCELength: UInt16 = 0
        ) {
            self.intervalMin = intervalMin
            self.intervalMax = intervalMax
            self.latency = latency
            self.supervisionTimeout = supervisionTimeout
            self.minCELength = minCELength
            self.maxCELength = maxCELength
        }

        /// One interval (rounded down to 1.25 ms units), latency and supervision timeout (10 ms units).
        public init(interval: Duration, latency: UInt16 = 0, supervisionTimeout: Duration) {
            let units = UInt16(clamping: Int((interval.milliseconds / 1.25).rounded(.down)))
            self.init(
                intervalMin: units, intervalMax: units, latency: latency,
                supervisionTimeout: UInt16(clamping: Int((supervisionTimeout.milliseconds / 10).rounded(.down))))
        }

        /// The spec's ranges (§7.8.12): interval 7.5 ms–4 s, latency ≤ 499, timeout 100 ms–32 s and longer than
        /// (1 + latency) × interval max × 2. Nil when they hold, otherwise what breaks them.
        public var violation: String? {
            guard (6...3200).contains(intervalMin), (6...3200).contains(intervalMax), intervalMin <= intervalMax else {
                return "connection interval \(intervalMin)–\(intervalMax) × 1.25 ms is outside 6–3200 or inverted"
            }
            guard latency <= 499 else { return "peripheral latency \(latency) exceeds 499" }
            guard (10...3200).contains(supervisionTimeout) else {
                return "supervision timeout \(supervisionTimeout) × 10 ms is outside 10–3200"
            }
            // timeout × 10 ms > (1 + latency) × interval × 1.25 ms × 2, in units of 0.25 ms.
            guard Int(supervisionTimeout) * 40 > (1 + Int(latency)) * Int(intervalMax) * 10 else {
                return "supervision timeout \(supervisionTimeout * 10) ms is not longer than "
                    + "(1 + latency) × interval × 2"
            }
            return nil
        }

        func write(to writer: inout ByteWriter, eventLengths: Bool = true) {
            writer.write(intervalMin)
            writer.write(intervalMax)
            writer.write(latency)
            writer.write(supervisionTimeout)
            if eventLengths {
                writer.write(minCELength)
                writer.write(maxCELength)
            }
        }

        static func read(from reader: inout ByteReader, eventLengths: Bool = true) throws(DecodingError) -> Self {
            let min = try reader.readUInt16("connection interval min")
            let max = try reader.readUInt16("connection interval max")
            let latency = try reader.readUInt16("max latency")
            let timeout = try reader.readUInt16("supervision timeout")
            var result = Self(intervalMin: min, intervalMax: max, latency: latency, supervisionTimeout: timeout)
            if eventLengths {
                result.minCELength = try reader.readUInt16("min CE length")
                result.maxCELength = try reader.readUInt16("max CE length")
            }
            return result
        }

        /// `interval 12–12 latency 0 timeout 400`.
        public var description: String {
            "interval \(intervalMin)–\(intervalMax) latency \(latency) timeout \(supervisionTimeout)"
        }
    }

    /// Scan parameters (§7.8.10, and per PHY in §7.8.64): interval and window in 0.625 ms units.
    public struct ScanParameters: Hashable, Sendable {
        /// Active scanning sends SCAN_REQ and reports scan responses (where names usually are).
        public var active: Bool
        public var interval: UInt16
        public var window: UInt16
        public var ownAddressKind: DeviceAddress.Kind
        /// 0x00: accept all advertisements (not only those on the Filter Accept List).
        public var filterPolicy: UInt8

        public init(
            active: Bool = true, interval: UInt16 = 0x0010, window: UInt16 = 0x0010,
            ownAddressKind: DeviceAddress.Kind = .public, filterPolicy: UInt8 = 0
        ) {
            self.active = active
            self.interval = interval
            self.window = window
            self.ownAddressKind = ownAddressKind
            self.filterPolicy = filterPolicy
        }
    }

    /// What LE Create Connection and LE Extended Create Connection (on the 1M PHY) carry.
    public struct CreateConnection: Hashable, Sendable {
        public var scanInterval: UInt16
        public var scanWindow: UInt16
        public var peer: DeviceAddress
        public var ownAddressKind: DeviceAddress.Kind
        public var parameters: ConnectionParameters

        public init(
            peer: DeviceAddress, parameters: ConnectionParameters, ownAddressKind: DeviceAddress.Kind = .public,
            scanInterval: UInt16 = 0x0010, scanWindow: UInt16 = 0x0010
        ) {
            self.scanInterval = scanInterval
            self.scanWindow = scanWindow
            self.peer = peer
            self.ownAddressKind = ownAddressKind
            self.parameters = parameters
        }
    }

    /// Legacy advertising parameters (§7.8.5): intervals in 0.625 ms units.
    public struct AdvertisingParameters: Hashable, Sendable {
        public enum Kind: UInt8, Hashable, Sendable {
            /// ADV_IND: connectable and scannable undirected.
            case connectableUndirected = 0x00
            case connectableDirectedHighDuty = 0x01
            /// ADV_SCAN_IND: scannable, not connectable.
            case scannableUndirected = 0x02
            /// ADV_NONCONN_IND.
            case nonConnectableUndirected = 0x03
            case connectableDirectedLowDuty = 0x04
        }

        public var intervalMin: UInt16
        public var intervalMax: UInt16
        public var kind: Kind
        public var ownAddressKind: DeviceAddress.Kind
        public var peer: DeviceAddress
        /// Bits 0–2: channels 37, 38, 39.
        public var channelMap: UInt8
        public var filterPolicy: UInt8

        public init(
            interval: Duration, kind: Kind = .connectableUndirected, ownAddressKind: DeviceAddress.Kind = .public,
            channelMap: UInt8 = 0x07, filterPolicy: UInt8 = 0
        ) {
            let units = UInt16(clamping: max(0x20, Int((interval.milliseconds / 0.625).rounded())))
            intervalMin = units
            intervalMax = units
            self.kind = kind
            self.ownAddressKind = ownAddressKind
            peer = DeviceAddress(0)
            self.channelMap = channelMap
            self.filterPolicy = filterPolicy
        }
    }

    /// The LE PHYs as a bit set (§7.8.49): bit 0 LE 1M, bit 1 LE 2M, bit 2 LE Coded.
    public struct PHYs: OptionSet, Hashable, Sendable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        public static let le1M = Self(rawValue: 0x01)
        public static let le2M = Self(rawValue: 0x02)
        public static let leCoded = Self(rawValue: 0x04)
    }

    /// The commands blerig's host sends, with their parameters (Core 5.4 Vol 4 Part E §7). Each encodes to a
    /// ``CommandPacket``; a controller (or a test's fake one) decodes it back with ``init(decoding:)``.
    public enum Command: Hashable, Sendable, CustomStringConvertible {
        case reset
        case setEventMask(UInt64)
        case readLocalVersionInformation
        case readLocalSupportedFeatures
        case readBufferSize
        case readBDAddr
        case leSetEventMask(UInt64)
        case leReadBufferSize
        case leReadLocalSupportedFeatures
        case leSetRandomAddress(DeviceAddress)
        case leSetAdvertisingParameters(AdvertisingParameters)
        /// At most 31 bytes; padded with zeros to 31 on the wire.
        case leSetAdvertisingData([UInt8])
        case leSetScanResponseData([UInt8])
        case leSetAdvertisingEnable(Bool)
        case leSetScanParameters(ScanParameters)
        case leSetScanEnable(Bool, filterDuplicates: Bool)
        case leCreateConnection(CreateConnection)
        case leCreateConnectionCancel
        case leConnectionUpdate(handle: UInt16, ConnectionParameters)
        case leRemoteConnectionParameterRequestReply(handle: UInt16, ConnectionParameters)
        case leRemoteConnectionParameterRequestNegativeReply(handle: UInt16, reason: HCIErrorCode)
        /// Octets 27–251, time 328–17040 µs.
        case leSetDataLength(handle: UInt16, txOctets: UInt16, txTime: UInt16)
        case leWriteSuggestedDefaultDataLength(txOctets: UInt16, txTime: UInt16)
        case leSetPHY(handle: UInt16, tx: PHYs, rx: PHYs)
        /// Scanning on the LE 1M PHY.
        case leSetExtendedScanParameters(ScanParameters)
        case leSetExtendedScanEnable(Bool, filterDuplicates: Bool)
        /// Initiating on the LE 1M PHY.
        case leExtendedCreateConnection(CreateConnection)
        case disconnect(handle: UInt16, reason: HCIErrorCode)

        public var opcode: Opcode {
            switch self {
            case .reset: .reset
            case .setEventMask: .setEventMask
            case .readLocalVersionInformation: .readLocalVersionInformation
            case .readLocalSupportedFeatures: .readLocalSupportedFeatures
            case .readBufferSize: .readBufferSize
            case .readBDAddr: .readBDAddr
            case .leSetEventMask: .leSetEventMask
            case .leReadBufferSize: .leReadBufferSize
            case .leReadLocalSupportedFeatures: .leReadLocalSupportedFeatures
            case .leSetRandomAddress: .leSetRandomAddress
            case .leSetAdvertisingParameters: .leSetAdvertisingParameters
            case .leSetAdvertisingData: .leSetAdvertisingData
            case .leSetScanResponseData: .leSetScanResponseData
            case .leSetAdvertisingEnable: .leSetAdvertisingEnable
            case .leSetScanParameters: .leSetScanParameters
            case .leSetScanEnable: .leSetScanEnable
            case .leCreateConnection: .leCreateConnection
            case .leCreateConnectionCancel: .leCreateConnectionCancel
            case .leConnectionUpdate: .leConnectionUpdate
            case .leRemoteConnectionParameterRequestReply: .leRemoteConnectionParameterRequestReply
            case .leRemoteConnectionParameterRequestNegativeReply: .leRemoteConnectionParameterRequestNegativeReply
            case .leSetDataLength: .leSetDataLength
            case .leWriteSuggestedDefaultDataLength: .leWriteSuggestedDefaultDataLength
            case .leSetPHY: .leSetPHY
            case .leSetExtendedScanParameters: .leSetExtendedScanParameters
            case .leSetExtendedScanEnable: .leSetExtendedScanEnable
            case .leExtendedCreateConnection: .leExtendedCreateConnection
            case .disconnect: .disconnect
            }
        }

        /// The controller answers with Command Status, and the command's own event follows when it is done
        /// (Core 5.4 Vol 4 Part E §7.1.6, §7.8.12, §7.8.18, §7.8.49, §7.8.66); the others with Command Complete.
        public var completesWithItsOwnEvent: Bool {
            switch self {
            case .leCreateConnection, .leExtendedCreateConnection, .leConnectionUpdate, .leSetPHY, .disconnect: true
            default: false
            }
        }

        public var packet: CommandPacket {
            var w = ByteWriter(capacity: 32)
            switch self {
            case .reset, .readLocalVersionInformation, .readLocalSupportedFeatures, .readBufferSize, .readBDAddr,
                .leReadBufferSize, .leReadLocalSupportedFeatures, .leCreateConnectionCancel:
                break
            case let .setEventMask(mask), let .leSetEventMask(mask):
                w.write(mask)
            case let .leSetRandomAddress(address):
                w.write(contentsOf: address.littleEndianBytes)
            case let .leSetAdvertisingParameters(p):
                w.write(p.intervalMin)
                w.write(p.intervalMax)
                w.write(p.kind.rawValue)
                w.write(p.ownAddressKind.rawValue)
                w.write(p.peer.kind.rawValue)
                w.write(contentsOf: p.peer.littleEndianBytes)
                w.write(p.channelMap)
                w.write(p.filterPolicy)
            case let .leSetAdvertisingData(data), let .leSetScanResponseData(data):
                precondition(data.count <= 31, "legacy advertising data holds at most 31 bytes")
                w.write(UInt8(data.count))
                w.write(contentsOf: data + [UInt8](repeating: 0, count: 31 - data.count))
            case let .leSetAdvertisingEnable(on):
                w.write(UInt8(on ? 1 : 0))
            case let .leSetScanParameters(p):
                w.write(UInt8(p.active ? 1 : 0))
                w.write(p.interval)
                w.write(p.window)
                w.write(p.ownAddressKind.rawValue)
                w.write(p.filterPolicy)
            case let .leSetScanEnable(on, duplicates), let .leSetExtendedScanEnable(on, duplicates):
                w.write(UInt8(on ? 1 : 0))
                w.write(UInt8(duplicates ? 1 : 0))
                if case .leSetExtendedScanEnable = self {
                    w.write(UInt16(0))  // duration: until disabled
                    w.write(UInt16(0))  // period: once
                }
            case let .leCreateConnection(c):
                w.write(c.scanInterval)
                w.write(c.scanWindow)
                w.write(UInt8(0))  // initiator filter policy: the peer address below
                w.write(c.peer.kind.rawValue)
                w.write(contentsOf: c.peer.littleEndianBytes)
                w.write(c.ownAddressKind.rawValue)
                c.parameters.write(to: &w)
            case let .leExtendedCreateConnection(c):
                w.write(UInt8(0))  // initiator filter policy
                w.write(c.ownAddressKind.rawValue)
                w.write(c.peer.kind.rawValue)
                w.write(contentsOf: c.peer.littleEndianBytes)
                w.write(PHYs.le1M.rawValue)
                w.write(c.scanInterval)
                w.write(c.scanWindow)
                c.parameters.write(to: &w)
            case let .leConnectionUpdate(handle, p), let .leRemoteConnectionParameterRequestReply(handle, p):
                w.write(handle)
                p.write(to: &w)
            case let .leRemoteConnectionParameterRequestNegativeReply(handle, reason):
                w.write(handle)
                w.write(reason.rawValue)
            case let .leSetDataLength(handle, octets, time):
                w.write(handle)
                w.write(octets)
                w.write(time)
            case let .leWriteSuggestedDefaultDataLength(octets, time):
                w.write(octets)
                w.write(time)
            case let .leSetPHY(handle, tx, rx):
                w.write(handle)
                w.write(UInt8(0))  // all PHYs: the host states both preferences
                w.write(tx.rawValue)
                w.write(rx.rawValue)
                w.write(UInt16(0))  // PHY options: no preference for coded
            case let .leSetExtendedScanParameters(p):
                w.write(p.ownAddressKind.rawValue)
                w.write(p.filterPolicy)
                w.write(PHYs.le1M.rawValue)
                w.write(UInt8(p.active ? 1 : 0))
                w.write(p.interval)
                w.write(p.window)
            case let .disconnect(handle, reason):
                w.write(handle)
                w.write(reason.rawValue)
            }
            return CommandPacket(opcode: opcode, parameters: w.bytes)
        }

        public var h4: H4Packet { H4Packet(type: .command, body: packet.encoded) }

        /// Decodes a command blerig sends; other opcodes and malformed parameters throw.
        public init(decoding packet: CommandPacket) throws(DecodingError) {
            var r = ByteReader(packet.parameters, context: "HCI \(packet.opcode.name) command")
            func address(_ field: String) throws(DecodingError) -> DeviceAddress {
                let kind = try r.readUInt8("\(field) type")
                return try DeviceAddress(littleEndian: r.readBytes(6, field), kind: kind == 0 ? .public : .random)
            }
            func kind(_ field: String) throws(DecodingError) -> DeviceAddress.Kind {
                try r.readUInt8(field) == 0 ? .public : .random
            }
            switch packet.opcode {
            case .reset: self = .reset
            case .setEventMask: self = .setEventMask(try r.readUInt64("event mask"))
            case .readLocalVersionInformation: self = .readLocalVersionInformation
            case .readLocalSupportedFeatures: self = .readLocalSupportedFeatures
            case .readBufferSize: self = .readBufferSize
            case .readBDAddr: self = .readBDAddr
            case .leSetEventMask: self = .leSetEventMask(try r.readUInt64("LE event mask"))
            case .leReadBufferSize: self = .leReadBufferSize
            case .leReadLocalSupportedFeatures: self = .leReadLocalSupportedFeatures
            case .leCreateConnectionCancel: self = .leCreateConnectionCancel
            case .leSetRandomAddress:
                self = .leSetRandomAddress(
                    try DeviceAddress(littleEndian: r.readBytes(6, "random address"), kind: .random))
            case .leSetAdvertisingParameters:
                let min = try r.readUInt16("advertising interval min")
                let max = try r.readUInt16("advertising interval max")
                let rawKind = try r.readUInt8("advertising type")
                guard let advertisingKind = AdvertisingParameters.Kind(rawValue: rawKind) else {
                    throw .invalidValue(
                        context: r.context, field: "advertising type", reason: "0x\([rawKind].hexString) is reserved",
                        at: 4)
                }
                var p = AdvertisingParameters(
                    interval: .zero, kind: advertisingKind, ownAddressKind: try kind("own address type"))
                p.intervalMin = min
                p.intervalMax = max
                p.peer = try address("peer address")
                p.channelMap = try r.readUInt8("channel map")
                p.filterPolicy = try r.readUInt8("filter policy")
                self = .leSetAdvertisingParameters(p)
            case .leSetAdvertisingData, .leSetScanResponseData:
                let length = Int(try r.readUInt8("data length"))
                let padded = try r.readBytes(31, "data")
                guard length <= 31 else {
                    throw .invalidValue(context: r.context, field: "data length", reason: "\(length) exceeds 31", at: 0)
                }
                let data = Array(padded[..<length])
                self =
                    packet.opcode == .leSetAdvertisingData ? .leSetAdvertisingData(data) : .leSetScanResponseData(data)
            case .leSetAdvertisingEnable: self = .leSetAdvertisingEnable(try r.readUInt8("enable") != 0)
            case .leSetScanParameters:
                let active = try r.readUInt8("scan type") != 0
                let interval = try r.readUInt16("scan interval")
                let window = try r.readUInt16("scan window")
                let own = try kind("own address type")
                let policy = try r.readUInt8("filter policy")
                self = .leSetScanParameters(
                    ScanParameters(
                        active: active, interval: interval, window: window, ownAddressKind: own, filterPolicy: policy))
            case .leSetScanEnable, .leSetExtendedScanEnable:
                let on = try r.readUInt8("enable") != 0
                let duplicates = try r.readUInt8("filter duplicates") != 0
                if packet.opcode == .leSetScanEnable {
                    self = .leSetScanEnable(on, filterDuplicates: duplicates)
                } else {
                    _ = try r.readUInt16("duration")
                    _ = try r.readUInt16("period")
                    self = .leSetExtendedScanEnable(on, filterDuplicates: duplicates)
                }
            case .leCreateConnection:
                let interval = try r.readUInt16("scan interval")
                let window = try r.readUInt16("scan window")
                _ = try r.readUInt8("initiator filter policy")
                let peer = try address("peer address")
                let own = try kind("own address type")
                let parameters = try ConnectionParameters.read(from: &r)
                self = .leCreateConnection(
                    CreateConnection(
                        peer: peer, parameters: parameters, ownAddressKind: own, scanInterval: interval,
                        scanWindow: window))
            case .leExtendedCreateConnection:
                _ = try r.readUInt8("initiator filter policy")
                let own = try kind("own address type")
                let peer = try address("peer address")
                let phys = PHYs(rawValue: try r.readUInt8("initiating PHYs"))
                guard phys == .le1M else {
                    throw .invalidValue(
                        context: r.context, field: "initiating PHYs", reason: "only LE 1M is decoded here", at: 9)
                }
                let interval = try r.readUInt16("scan interval")
                let window = try r.readUInt16("scan window")
                let parameters = try ConnectionParameters.read(from: &r)
                self = .leExtendedCreateConnection(
                    CreateConnection(
                        peer: peer, parameters: parameters, ownAddressKind: own, scanInterval: interval,
                        scanWindow: window))
            case .leConnectionUpdate, .leRemoteConnectionParameterRequestReply:
                let handle = try r.readUInt16("connection handle")
                let parameters = try ConnectionParameters.read(from: &r)
                self =
                    packet.opcode == .leConnectionUpdate
                    ? .leConnectionUpdate(handle: handle, parameters)
                    : .leRemoteConnectionParameterRequestReply(handle: handle, parameters)
            case .leRemoteConnectionParameterRequestNegativeReply:
                self = .leRemoteConnectionParameterRequestNegativeReply(
                    handle: try r.readUInt16("connection handle"),
                    reason: HCIErrorCode(rawValue: try r.readUInt8("reason")))
            case .leSetDataLength:
                self = .leSetDataLength(
                    handle: try r.readUInt16("connection handle"), txOctets: try r.readUInt16("tx octets"),
                    txTime: try r.readUInt16("tx time"))
            case .leWriteSuggestedDefaultDataLength:
                self = .leWriteSuggestedDefaultDataLength(
                    txOctets: try r.readUInt16("suggested max tx octets"),
                    txTime: try r.readUInt16("suggested max tx time"))
            case .leSetPHY:
                let handle = try r.readUInt16("connection handle")
                _ = try r.readUInt8("all PHYs")
                let tx = PHYs(rawValue: try r.readUInt8("tx PHYs"))
                let rx = PHYs(rawValue: try r.readUInt8("rx PHYs"))
                _ = try r.readUInt16("PHY options")
                self = .leSetPHY(handle: handle, tx: tx, rx: rx)
            case .leSetExtendedScanParameters:
                let own = try kind("own address type")
                let policy = try r.readUInt8("filter policy")
                let phys = PHYs(rawValue: try r.readUInt8("scanning PHYs"))
                guard phys == .le1M else {
                    throw .invalidValue(
                        context: r.context, field: "scanning PHYs", reason: "only LE 1M is decoded here", at: 2)
                }
                let active = try r.readUInt8("scan type") != 0
                let interval = try r.readUInt16("scan interval")
                let window = try r.readUInt16("scan window")
                self = .leSetExtendedScanParameters(
                    ScanParameters(
                        active: active, interval: interval, window: window, ownAddressKind: own, filterPolicy: policy))
            case .disconnect:
                self = .disconnect(
                    handle: try r.readUInt16("connection handle"),
                    reason: HCIErrorCode(rawValue: try r.readUInt8("reason")))
            default:
                throw .invalidValue(
                    context: "HCI command packet", field: "opcode", reason: "\(packet.opcode) is not one blerig sends",
                    at: 0)
            }
            try r.expectEnd()
        }

        public var description: String { "\(opcode.name) \(packet.parameters.hexString)" }
    }
}
