extension ATT {
    /// Any ATT PDU (Vol 3 Part F §3.4): one case per message of Core 5.4, decoded by its opcode.
    public enum PDU: Hashable, Sendable {
        case errorResponse(ErrorResponse)
        case exchangeMTURequest(ExchangeMTURequest)
        case exchangeMTUResponse(ExchangeMTUResponse)
        case findInformationRequest(FindInformationRequest)
        case findInformationResponse(FindInformationResponse)
        case findByTypeValueRequest(FindByTypeValueRequest)
        case findByTypeValueResponse(FindByTypeValueResponse)
        case readByTypeRequest(ReadByTypeRequest)
        case readByTypeResponse(ReadByTypeResponse)
        case readRequest(ReadRequest)
        case readResponse(ReadResponse)
        case readBlobRequest(ReadBlobRequest)
        case readBlobResponse(ReadBlobResponse)
        case readMultipleRequest(ReadMultipleRequest)
        case readMultipleResponse(ReadMultipleResponse)
        case readByGroupTypeRequest(ReadByGroupTypeRequest)
        case readByGroupTypeResponse(ReadByGroupTypeResponse)
        case readMultipleVariableRequest(ReadMultipleVariableRequest)
        case readMultipleVariableResponse(ReadMultipleVariableResponse)
        case writeRequest(WriteRequest)
        case writeResponse(WriteResponse)
        case writeCommand(WriteCommand)
        case signedWriteCommand(SignedWriteCommand)
        case prepareWriteRequest(PrepareWriteRequest)
        case prepareWriteResponse(PrepareWriteResponse)
        case executeWriteRequest(ExecuteWriteRequest)
        case executeWriteResponse(ExecuteWriteResponse)
        case handleValueNotification(HandleValueNotification)
        case handleValueIndication(HandleValueIndication)
        case handleValueConfirmation(HandleValueConfirmation)
        case multipleHandleValueNotification(MultipleHandleValueNotification)

        /// Decodes a complete PDU. Throws for an empty input, an opcode Core 5.4 does not define, and parameters
        /// the message does not allow; the error names the message and the field.
        public init(decoding bytes: [UInt8]) throws(DecodingError) {
            guard let first = bytes.first else {
                throw .truncated(context: "ATT PDU", field: "opcode", needed: 1, available: 0, at: 0)
            }
            let opcode = Opcode(rawValue: first)
            var reader = ByteReader(bytes, context: opcode.decodingContext)
            _ = try reader.readUInt8("opcode")
            switch opcode {
            case .errorResponse: self = .errorResponse(try ErrorResponse(decoding: &reader))
            case .exchangeMTURequest: self = .exchangeMTURequest(try ExchangeMTURequest(decoding: &reader))
            case .exchangeMTUResponse: self = .exchangeMTUResponse(try ExchangeMTUResponse(decoding: &reader))
            case .findInformationRequest: self = .findInformationRequest(try FindInformationRequest(decoding: &reader))
            case .findInformationResponse:
                self = .findInformationResponse(try FindInformationResponse(decoding: &reader))
            case .findByTypeValueRequest: self = .findByTypeValueRequest(try FindByTypeValueRequest(decoding: &reader))
            case .findByTypeValueResponse:
                self = .findByTypeValueResponse(try FindByTypeValueResponse(decoding: &reader))
            case .readByTypeRequest: self = .readByTypeRequest(try ReadByTypeRequest(decoding: &reader))
            case .readByTypeResponse: self = .readByTypeResponse(try ReadByTypeResponse(decoding: &reader))
            case .readRequest: self = .readRequest(try ReadRequest(decoding: &reader))
            case .readResponse: self = .readResponse(try ReadResponse(decoding: &reader))
            case .readBlobRequest: self = .readBlobRequest(try ReadBlobRequest(decoding: &reader))
            case .readBlobResponse: self = .readBlobResponse(try ReadBlobResponse(decoding: &reader))
            case .readMultipleRequest: self = .readMultipleRequest(try ReadMultipleRequest(decoding: &reader))
            case .readMultipleResponse: self = .readMultipleResponse(try ReadMultipleResponse(decoding: &reader))
            case .readByGroupTypeRequest: self = .readByGroupTypeRequest(try ReadByGroupTypeRequest(decoding: &reader))
            case .readByGroupTypeResponse:
                self = .readByGroupTypeResponse(try ReadByGroupTypeResponse(decoding: &reader))
            case .readMultipleVariableRequest:
                self = .readMultipleVariableRequest(try ReadMultipleVariableRequest(decoding: &reader))
            case .readMultipleVariableResponse:
                self = .readMultipleVariableResponse(try ReadMultipleVariableResponse(decoding: &reader))
            case .writeRequest: self = .writeRequest(try WriteRequest(decoding: &reader))
            case .writeResponse: self = .writeResponse(try WriteResponse(decoding: &reader))
            case .writeCommand: self = .writeCommand(try WriteCommand(decoding: &reader))
            case .signedWriteCommand: self = .signedWriteCommand(try SignedWriteCommand(decoding: &reader))
            case .prepareWriteRequest: self = .prepareWriteRequest(try PrepareWriteRequest(decoding: &reader))
            case .prepareWriteResponse: self = .prepareWriteResponse(try PrepareWriteResponse(decoding: &reader))
            case .executeWriteRequest: self = .executeWriteRequest(try ExecuteWriteRequest(decoding: &reader))
            case .executeWriteResponse: self = .executeWriteResponse(try ExecuteWriteResponse(decoding: &reader))
            case .handleValueNotification:
                self = .handleValueNotification(try HandleValueNotification(decoding: &reader))
            case .handleValueIndication: self = .handleValueIndication(try HandleValueIndication(decoding: &reader))
            case .handleValueConfirmation:
                self = .handleValueConfirmation(try HandleValueConfirmation(decoding: &reader))
            case .multipleHandleValueNotification:
                self = .multipleHandleValueNotification(try MultipleHandleValueNotification(decoding: &reader))
            default:
                throw .invalidValue(
                    context: "ATT PDU", field: "opcode", reason: "\(ATT.hex(first)) is not an ATT opcode", at: 0)
            }
        }

        /// The message in this PDU.
        public var message: any ATTMessage {
            switch self {
            case .errorResponse(let m): m
            case .exchangeMTURequest(let m): m
            case .exchangeMTUResponse(let m): m
            case .findInformationRequest(let m): m
            case .findInformationResponse(let m): m
            case .findByTypeValueRequest(let m): m
            case .findByTypeValueResponse(let m): m
            case .readByTypeRequest(let m): m
            case .readByTypeResponse(let m): m
            case .readRequest(let m): m
            case .readResponse(let m): m
            case .readBlobRequest(let m): m
            case .readBlobResponse(let m): m
            case .readMultipleRequest(let m): m
            case .readMultipleResponse(let m): m
            case .readByGroupTypeRequest(let m): m
            case .readByGroupTypeResponse(let m): m
            case .readMultipleVariableRequest(let m): m
            case .readMultipleVariableResponse(let m): m
            case .writeRequest(let m): m
            case .writeResponse(let m): m
            case .writeCommand(let m): m
            case .signedWriteCommand(let m): m
            case .prepareWriteRequest(let m): m
            case .prepareWriteResponse(let m): m
            case .executeWriteRequest(let m): m
            case .executeWriteResponse(let m): m
            case .handleValueNotification(let m): m
            case .handleValueIndication(let m): m
            case .handleValueConfirmation(let m): m
            case .multipleHandleValueNotification(let m): m
            }
        }

        public var opcode: Opcode { type(of: message).opcode }

        /// The complete PDU: the opcode, then the parameters.
        public var encoded: [UInt8] { message.encoded }
    }
}
