extension HCI {
    /// The LE Connection Complete event, LE Meta 0x3E subevent 0x01 (Core 5.4 Vol 4 Part E §7.7.65.1): status,
    /// connection handle, role, peer address type and address, connection interval (1.25 ms units), peripheral
    /// latency, supervision timeout (10 ms units), central clock accuracy. A capture needs it so that Wireshark
    /// knows which handle belongs to which peer.
    public struct LEConnectionComplete: Hashable, Sendable, CustomStringConvertible {
        public static let subevent = LESubevent.connectionComplete
        /// Subevent code plus 18 bytes of parameters.
        static let parameterLength = 19
        static let context = "HCI LE Connection Complete event"

        public var status: HCIErrorCode
        public var handle: UInt16
        public var role: Role
        public var peerAddress: DeviceAddress
        /// In units of 1.25 ms (6–3200 ⇒ 7.5 ms–4 s).
        public var connectionInterval: UInt16
        /// Connection events the peripheral may skip.
        public var peripheralLatency: UInt16
        /// In units of 10 ms (10–3200 ⇒ 100 ms–32 s).
        public var supervisionTimeout: UInt16
        /// 0 (500 ppm) … 7 (20 ppm); only meaningful on a peripheral.
        public var centralClockAccuracy: UInt8
        /// True for the LE Enhanced Connection Complete event (subevent 0x0A, §7.7.65.10), which adds the local
        /// and peer resolvable private addresses (kept as zeros here: blerig uses no address resolution).
        public var enhanced = false

        public init(
            status: HCIErrorCode = .success, handle: UInt16, role: Role = .central, peerAddress: DeviceAddress,
            connectionInterval: UInt16, peripheralLatency: UInt16 = 0, supervisionTimeout: UInt16,
            centralClockAccuracy: UInt8 = 0
        ) {
            precondition(handle <= 0x0FFF, "an HCI connection handle has 12 bits")
            self.status = status
            self.handle = handle
            self.role = role
            self.peerAddress = peerAddress
            self.connectionInterval = connectionInterval
            self.peripheralLatency = peripheralLatency
            self.supervisionTimeout = supervisionTimeout
            self.centralClockAccuracy = centralClockAccuracy
        }

        /// The connection interval as a duration.
        public var connectionIntervalDuration: Duration { .microseconds(Int64(connectionInterval) * 1250) }
        /// The supervision timeout as a duration.
        public var supervisionTimeoutDuration: Duration { .milliseconds(Int64(supervisionTimeout) * 10) }

        /// Decodes the parameters of an event that must be an LE Connection Complete.
        public init(event: EventPacket) throws(DecodingError) {
            guard event.code == .leMeta else {
                throw .invalidValue(
                    context: Self.context, field: "event code", reason: "\(event.code) is not LE Meta 0x3E", at: 0)
            }
            var reader = ByteReader(event.parameters, context: Self.context)
            let subevent = LESubevent(rawValue: try reader.readUInt8("subevent code"))
            guard subevent == Self.subevent || subevent == .enhancedConnectionComplete else {
                throw .invalidValue(
                    context: Self.context, field: "subevent code",
                    reason: "\(subevent) is not \(Self.subevent) or its enhanced form", at: 0)
            }
            enhanced = subevent == .enhancedConnectionComplete
            status = HCIErrorCode(rawValue: try reader.readUInt8("status"))
            handle = try reader.readConnectionHandle(status: status)
            let roleAt = reader.position
            guard let role = Role(rawValue: try reader.readUInt8("role")) else {
                throw .invalidValue(
                    context: Self.context, field: "role", reason: "only 0x00 central and 0x01 peripheral exist",
                    at: roleAt)
            }
            self.role = role
            let kindAt = reader.position
            // The enhanced event adds 0x02/0x03: a public/random identity address resolved from an RPA.
            let rawKind = try reader.readUInt8("peer address type")
            guard let kind = DeviceAddress.Kind(rawValue: enhanced ? rawKind & 0x01 : rawKind), rawKind <= 0x03 else {
                throw .invalidValue(
                    context: Self.context, field: "peer address type",
                    reason: "only 0x00 public and 0x01 random exist in this event", at: kindAt)
            }
            peerAddress = try DeviceAddress(littleEndian: reader.readBytes(6, "peer address"), kind: kind)
            if enhanced {
                _ = try reader.readBytes(6, "local resolvable private address")
                _ = try reader.readBytes(6, "peer resolvable private address")
            }
            connectionInterval = try reader.readUInt16("connection interval")
            peripheralLatency = try reader.readUInt16("peripheral latency")
            supervisionTimeout = try reader.readUInt16("supervision timeout")
            centralClockAccuracy = try reader.readUInt8("central clock accuracy")
            try reader.expectEnd()
        }

        /// Decodes a whole event packet (event code, length, parameters; no H4 indicator).
        public init(decoding bytes: some Collection<UInt8>) throws(DecodingError) {
            try self.init(event: EventPacket(decoding: bytes))
        }

        public var event: EventPacket {
            var writer = ByteWriter(capacity: Self.parameterLength)
            writer.write(enhanced ? LESubevent.enhancedConnectionComplete.rawValue : Self.subevent.rawValue)
            writer.write(status.rawValue)
            writer.write(handle)
            writer.write(role.rawValue)
            writer.write(peerAddress.kind.rawValue)
            writer.write(contentsOf: peerAddress.littleEndianBytes)
            if enhanced { writer.write(contentsOf: [UInt8](repeating: 0, count: 12)) }
            writer.write(connectionInterval)
            writer.write(peripheralLatency)
            writer.write(supervisionTimeout)
            writer.write(centralClockAccuracy)
            return EventPacket(code: .leMeta, parameters: writer.bytes)
        }

        /// The whole event packet (no H4 indicator).
        public var encoded: [UInt8] { event.encoded }

        /// `LE Connection Complete handle 0x0040 central peer 24:0A:C4:12:1A:2B status 0x00 (success)`.
        public var description: String {
            "LE Connection Complete handle 0x\(String(handle, radix: 16)) \(role) peer \(peerAddress) status \(status)"
        }
    }

    /// The local device's role on a connection (Core 5.4 Vol 4 Part E §7.7.65.1).
    public enum Role: UInt8, Hashable, Sendable, CustomStringConvertible {
        case central = 0x00
        case peripheral = 0x01

        public var description: String { self == .central ? "central" : "peripheral" }
    }
}
