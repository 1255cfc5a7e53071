extension ATT {
    /// ATT_PREPARE_WRITE_REQ: queues part of a value at an offset, to be written by an Execute Write Request
    /// (Vol 3 Part F §3.4.6.1).
    public struct PrepareWriteRequest: ATTQueuedPartMessage {
        public static var opcode: Opcode { .prepareWriteRequest }

        public var handle: UInt16
        public var offset: UInt16
        /// The part of the value.
        public var value: [UInt8]

        public init(handle: UInt16, offset: UInt16, value: [UInt8]) {
            self.handle = handle
            self.offset = offset
            self.value = value
        }
    }

    /// ATT_PREPARE_WRITE_RSP: echoes the queued part so the client can check it arrived intact
    /// (Vol 3 Part F §3.4.6.2).
    public struct PrepareWriteResponse: ATTQueuedPartMessage {
        public static var opcode: Opcode { .prepareWriteResponse }

        public var handle: UInt16
        public var offset: UInt16
        public var value: [UInt8]

        public init(handle: UInt16, offset: UInt16, value: [UInt8]) {
            self.handle = handle
            self.offset = offset
            self.value = value
        }
    }

    /// ATT_EXECUTE_WRITE_REQ: writes or discards every queued part (Vol 3 Part F §3.4.6.3).
    public struct ExecuteWriteRequest: ATTMessage {
        public static var opcode: Opcode { .executeWriteRequest }

        /// The Flags field. Other values are reserved.
        public enum Flags: UInt8, Hashable, Sendable {
            /// Cancel all prepared writes.
            case cancel = 0x00
            /// Immediately write all pending prepared values.
            case write = 0x01
        }

        public var flags: Flags

        public init(flags: Flags) { self.flags = flags }

        public init(decoding reader: inout ByteReader) throws(DecodingError) {
            let at = reader.position
            let raw = try reader.readUInt8("flags")
            guard let flags = Flags(rawValue: raw) else {
                throw .invalidValue(
                    context: reader.context, field: "flags",
                    reason: "\(ATT.hex(raw)) is reserved; 0x00 cancels, 0x01 writes", at: at)
            }
            self.flags = flags
            try reader.expectEnd()
        }

        public func encode(into writer: inout ByteWriter) { writer.write(flags.rawValue) }
    }

    /// ATT_EXECUTE_WRITE_RSP: the queued writes were performed or discarded (Vol 3 Part F §3.4.6.4).
    public struct ExecuteWriteResponse: ATTMessage {
        public static var opcode: Opcode { .executeWriteResponse }

        public init() {}

        public init(decoding reader: inout ByteReader) throws(DecodingError) { try reader.expectEnd() }

        public func encode(into writer: inout ByteWriter) {}
    }
}
