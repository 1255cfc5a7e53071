extension ATT {
    /// ATT_READ_REQ: the value of one attribute (Vol 3 Part F §3.4.4.3).
    public struct ReadRequest: ATTMessage {
        public static var opcode: Opcode { .readRequest }

        public var handle: UInt16

        public init(handle: UInt16) { self.handle = handle }

        public init(decoding reader: inout ByteReader) throws(DecodingError) {
            handle = try reader.readUInt16("attribute handle")
            try reader.expectEnd()
        }

        public func encode(into writer: inout ByteWriter) { writer.write(handle) }
    }

    /// ATT_READ_RSP: the first ATT_MTU − 1 bytes of the value (Vol 3 Part F §3.4.4.4).
    public struct ReadResponse: ATTMessage {
        public static var opcode: Opcode { .readResponse }

        public var value: [UInt8]

        public init(value: [UInt8]) { self.value = value }

        public init(decoding reader: inout ByteReader) throws(DecodingError) { value = reader.readRemaining() }

        public func encode(into writer: inout ByteWriter) { writer.write(contentsOf: value) }
    }

    /// ATT_READ_BLOB_REQ: part of a long value, from an offset (Vol 3 Part F §3.4.4.5).
    public struct ReadBlobRequest: ATTMessage {
        public static var opcode: Opcode { .readBlobRequest }

        public var handle: UInt16
        public var offset: UInt16

        public init(handle: UInt16, offset: UInt16) {
            self.handle = handle
            self.offset = offset
        }

        public init(decoding reader: inout ByteReader) throws(DecodingError) {
            handle = try reader.readUInt16("attribute handle")
            offset = try reader.readUInt16("value offset")
            try reader.expectEnd()
        }

        public func encode(into writer: inout ByteWriter) {
            writer.write(handle)
            writer.write(offset)
        }
    }

    /// ATT_READ_BLOB_RSP: up to ATT_MTU − 1 bytes of the value from the requested offset (Vol 3 Part F §3.4.4.6).
    public struct ReadBlobResponse: ATTMessage {
        public static var opcode: Opcode { .readBlobResponse }

        /// The part of the value.
        public var value: [UInt8]

        public init(value: [UInt8]) { self.value = value }

        public init(decoding reader: inout ByteReader) throws(DecodingError) { value = reader.readRemaining() }

        public func encode(into writer: inout ByteWriter) { writer.write(contentsOf: value) }
    }
}
