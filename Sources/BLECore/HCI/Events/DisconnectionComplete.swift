extension HCI {
    /// The Disconnection Complete event, 0x05 (Core 5.4 Vol 4 Part E §7.7.5): status u8, connection handle u16,
    /// reason u8. A capture needs it so that Wireshark closes the connection.
    public struct DisconnectionComplete: Hashable, Sendable, CustomStringConvertible {
        public static let code = EventCode.disconnectionComplete
        static let context = "HCI Disconnection Complete event"

        public var status: HCIErrorCode
        public var handle: UInt16
        /// Why the link went down (0x08 supervision timeout, 0x13 remote user terminated, 0x16 local host, ...).
        public var reason: HCIErrorCode

        public init(status: HCIErrorCode = .success, handle: UInt16, reason: HCIErrorCode) {
            precondition(handle <= 0x0FFF, "an HCI connection handle has 12 bits")
            self.status = status
            self.handle = handle
            self.reason = reason
        }

        /// Decodes the parameters of an event that must be a Disconnection Complete.
        public init(event: EventPacket) throws(DecodingError) {
            guard event.code == Self.code else {
                throw .invalidValue(
                    context: Self.context, field: "event code", reason: "\(event.code) is not \(Self.code)", at: 0)
            }
            var reader = ByteReader(event.parameters, context: Self.context)
            status = HCIErrorCode(rawValue: try reader.readUInt8("status"))
            handle = try reader.readConnectionHandle(status: status)
            reason = HCIErrorCode(rawValue: try reader.readUInt8("reason"))
            try reader.expectEnd()
        }

        /// Decodes a whole event packet (event code, length, parameters; no H4 indicator).
        public init(decoding bytes: some Collection<UInt8>) throws(DecodingError) {
            try self.init(event: EventPacket(decoding: bytes))
        }

        public var event: EventPacket {
            var writer = ByteWriter(capacity: 4)
            writer.write(status.rawValue)
            writer.write(handle)
            writer.write(reason.rawValue)
            return EventPacket(code: Self.code, parameters: writer.bytes)
        }

        /// The whole event packet (no H4 indicator).
        public var encoded: [UInt8] { event.encoded }

        /// `Disconnection Complete handle 0x0040 status 0x00 (success) reason 0x13 (...)`.
        public var description: String {
            "Disconnection Complete handle 0x\(String(handle, radix: 16)) status \(status) reason \(reason)"
        }
    }
}

extension ByteReader {
    /// Reads a u16 connection handle from an event; a successful event must name a handle in 0x0000–0x0EFF
    /// (Core 5.4 Vol 4 Part E §5.4.2), a failed one may carry anything in 12 bits.
    mutating func readConnectionHandle(status: HCIErrorCode) throws(DecodingError) -> UInt16 {
        let at = position
        let handle = try readUInt16("connection handle")
        let limit = status == .success ? HCI.maximumConnectionHandle : 0x0FFF
        guard handle <= limit else {
            throw .invalidValue(
                context: context, field: "connection handle",
                reason: "0x\(String(handle, radix: 16)) is above 0x\(String(limit, radix: 16))", at: at)
        }
        return handle
    }
}
