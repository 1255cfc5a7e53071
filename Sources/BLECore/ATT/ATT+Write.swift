extension ATT {
    /// ATT_WRITE_REQ: writes a value and asks for a response (Vol 3 Part F §3.4.5.1).
    public struct WriteRequest: ATTHandleValueMessage {
        public static var opcode: Opcode { .writeRequest }

        public var handle: UInt16
        public var value: [UInt8]

        public init(handle: UInt16, value: [UInt8]) {
            self.handle = handle
            self.value = value
        }
    }

    /// ATT_WRITE_RSP: the write succeeded (Vol 3 Part F §3.4.5.2). No parameters.
    public struct WriteResponse: ATTMessage {
        public static var opcode: Opcode { .writeResponse }

        public init() {}

        public init(decoding reader: inout ByteReader) throws(DecodingError) { try reader.expectEnd() }

        public func encode(into writer: inout ByteWriter) {}
    }

    /// ATT_WRITE_CMD: writes a value with no response, not even an error (Vol 3 Part F §3.4.5.3).
    public struct WriteCommand: ATTHandleValueMessage {
        public static var opcode: Opcode { .writeCommand }

        public var handle: UInt16
        public var value: [UInt8]

        public init(handle: UInt16, value: [UInt8]) {
            self.handle = handle
            self.value = value
        }
    }

    /// ATT_SIGNED_WRITE_CMD: a write command authenticated by a 12-byte signature made with the CSRK
    /// (Vol 3 Part F §3.4.5.4; the signature is defined in Vol 3 Part H §2.4.5).
    public struct SignedWriteCommand: ATTMessage {
        public static var opcode: Opcode { .signedWriteCommand }

        public static let signatureLength = 12

        public var handle: UInt16
        public var value: [UInt8]
        /// Exactly 12 bytes: the sign counter (4) and the MAC (8).
        public let signature: [UInt8]

        /// Precondition: `signature` is 12 bytes.
        public init(handle: UInt16, value: [UInt8], signature: [UInt8]) {
            precondition(signature.count == Self.signatureLength, "an ATT signature is 12 bytes")
            self.handle = handle
            self.value = value
            self.signature = signature
        }

        public init(decoding reader: inout ByteReader) throws(DecodingError) {
            handle = try reader.readUInt16("attribute handle")
            guard reader.remainingCount >= Self.signatureLength else {
                throw .truncated(
                    context: reader.context, field: "authentication signature", needed: Self.signatureLength,
                    available: reader.remainingCount, at: reader.position)
            }
            value = try reader.readBytes(reader.remainingCount - Self.signatureLength, "attribute value")
            signature = try reader.readBytes(Self.signatureLength, "authentication signature")
        }

        public func encode(into writer: inout ByteWriter) {
            writer.write(handle)
            writer.write(contentsOf: value)
            writer.write(contentsOf: signature)
        }
    }
}
