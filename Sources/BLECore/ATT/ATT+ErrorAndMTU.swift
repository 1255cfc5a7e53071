extension ATT {
    /// ATT_ERROR_RSP: a request could not be performed (Vol 3 Part F §3.4.1.1).
    public struct ErrorResponse: ATTMessage {
        public static var opcode: Opcode { .errorResponse }

        /// The opcode of the request that failed.
        public var requestOpcode: Opcode
        /// The handle that caused the error, or 0x0000 when no handle is involved.
        public var handle: UInt16
        public var error: ErrorCode

        public init(requestOpcode: Opcode, handle: UInt16, error: ErrorCode) {
            self.requestOpcode = requestOpcode
            self.handle = handle
            self.error = error
        }

        public init(decoding reader: inout ByteReader) throws(DecodingError) {
            requestOpcode = Opcode(rawValue: try reader.readUInt8("request opcode in error"))
            handle = try reader.readUInt16("attribute handle in error")
            error = ErrorCode(rawValue: try reader.readUInt8("error code"))
            try reader.expectEnd()
        }

        public func encode(into writer: inout ByteWriter) {
            writer.write(requestOpcode.rawValue)
            writer.write(handle)
            writer.write(error.rawValue)
        }
    }
}

extension ATT {
    /// ATT_EXCHANGE_MTU_REQ: the client's receive MTU (Vol 3 Part F §3.4.2.1). The specification requires it to
    /// be at least 23; the decoder accepts any value and the server treats a smaller one as 23.
    public struct ExchangeMTURequest: ATTMessage {
        public static var opcode: Opcode { .exchangeMTURequest }

        public var clientRxMTU: UInt16

        public init(clientRxMTU: UInt16) { self.clientRxMTU = clientRxMTU }

        public init(decoding reader: inout ByteReader) throws(DecodingError) {
            clientRxMTU = try reader.readUInt16("client rx MTU")
            try reader.expectEnd()
        }

        public func encode(into writer: inout ByteWriter) { writer.write(clientRxMTU) }
    }

    /// ATT_EXCHANGE_MTU_RSP: the server's receive MTU (Vol 3 Part F §3.4.2.2).
    public struct ExchangeMTUResponse: ATTMessage {
        public static var opcode: Opcode { .exchangeMTUResponse }

        public var serverRxMTU: UInt16

        public init(serverRxMTU: UInt16) { self.serverRxMTU = serverRxMTU }

        public init(decoding reader: inout ByteReader) throws(DecodingError) {
            serverRxMTU = try reader.readUInt16("server rx MTU")
            try reader.expectEnd()
        }

        public func encode(into writer: inout ByteWriter) { writer.write(serverRxMTU) }
    }
}
