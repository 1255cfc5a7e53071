extension GATTServer {
    /// Why a request failed: the error code and the handle an Error Response reports (Vol 3 Part F §3.4.1.1).
    struct RequestError: Error {
        var code: ATT.ErrorCode
        var handle: UInt16

        init(_ code: ATT.ErrorCode, _ handle: UInt16) {
            self.code = code
            self.handle = handle
        }
    }

    /// PDUs a client sends to a server: requests, commands and the confirmation (Vol 3 Part F §3.4.8).
    static let serverBound: Set<ATT.Opcode> = [
        .exchangeMTURequest, .findInformationRequest, .findByTypeValueRequest, .readByTypeRequest, .readRequest,
        .readBlobRequest, .readMultipleRequest, .readByGroupTypeRequest, .readMultipleVariableRequest, .writeRequest,
        .writeCommand, .signedWriteCommand, .prepareWriteRequest, .executeWriteRequest, .handleValueConfirmation,
    ]

    /// PDUs a server sends to a client; a server that receives one ignores it.
    static let clientBound: Set<ATT.Opcode> = [
        .errorResponse, .exchangeMTUResponse, .findInformationResponse, .findByTypeValueResponse, .readByTypeResponse,
        .readResponse, .readBlobResponse, .readMultipleResponse, .readByGroupTypeResponse,
        .readMultipleVariableResponse, .writeResponse, .prepareWriteResponse, .executeWriteResponse,
        .handleValueNotification, .handleValueIndication, .multipleHandleValueNotification,
    ]

    /// Handles one inbound ATT PDU from a client with a server that has no live behaviour (``StaticApplication``).
    public mutating func receive(_ pdu: [UInt8], from connection: ConnectionID) -> [Action] {
        var application = StaticApplication()
        return receive(pdu, from: connection, application: &application)
    }

    /// Handles one inbound ATT PDU from a client and returns what to send, in order.
    ///
    /// - A request gets exactly one response or Error Response, never longer than the connection's ATT_MTU: 0x04
    ///   Invalid PDU when it does not decode or is itself longer than ATT_MTU (§3.2.8), 0x06 Request Not Supported
    ///   (echoing the opcode) for an opcode this server does not know.
    /// - Commands (Write Command, Signed Write Command, unknown opcodes with bit 6 set) never get a response; a
    ///   Signed Write Command is dropped, as this server holds no signing keys.
    /// - A Handle Value Confirmation releases the outstanding indication and may send the next queued one.
    /// - PDUs a server never receives (responses, notifications, indications) and empty PDUs are ignored.
    public mutating func receive<A: GATTServerApplication>(
        _ pdu: [UInt8], from connection: ConnectionID, application: inout A
    ) -> [Action] {
        guard let first = pdu.first else { return [] }
        let opcode = ATT.Opcode(rawValue: first)
        _ = state(connection)
        guard Self.serverBound.contains(opcode) else {
            let ignored = opcode.isCommand || Self.clientBound.contains(opcode)
            return ignored ? [] : [errorResponse(opcode, RequestError(.requestNotSupported, 0), connection)]
        }
        let isRequest = !opcode.isCommand && opcode != .handleValueConfirmation
        guard pdu.count <= Int(mtu(of: connection)), let decoded = try? ATT.PDU(decoding: pdu) else {
            return isRequest ? [errorResponse(opcode, RequestError(.invalidPDU, 0), connection)] : []
        }
        if let refusal = robustCachingGate(decoded, isRequest: isRequest, connection) { return refusal }
        do throws(RequestError) {
            let response: any ATTMessage
            switch decoded {
            case .exchangeMTURequest(let request): response = exchangeMTU(request, connection)
            case .findInformationRequest(let request): response = try findInformation(request, connection)
            case .findByTypeValueRequest(let request):
                response = try findByTypeValue(request, connection, &application)
            case .readByTypeRequest(let request): response = try readByType(request, connection, &application)
            case .readRequest(let request): response = try read(request, connection, &application)
            case .readBlobRequest(let request): response = try readBlob(request, connection, &application)
            case .readMultipleRequest(let request): response = try readMultiple(request, connection, &application)
            case .readByGroupTypeRequest(let request): response = try readByGroupType(request, connection)
            case .readMultipleVariableRequest(let request):
                response = try readMultipleVariable(request, connection, &application)
            case .writeRequest(let request): response = try write(request, connection, &application)
            case .prepareWriteRequest(let request): response = try prepareWrite(request, connection)
            case .executeWriteRequest(let request): response = try executeWrite(request, connection, &application)
            case .writeCommand(let command):
                writeCommand(command, connection, &application)
                return []
            case .handleValueConfirmation:
                return confirmIndication(connection, &application)
            default:
                // Signed Write Command: this server holds no CSRK, so it cannot verify the signature; an
                // unverifiable signed write is not performed, and as a command it gets no response.
                return []
            }
            return [.send(response.encoded, to: connection)]
        } catch {
            return [errorResponse(opcode, error, connection)]
        }
    }

    func errorResponse(_ request: ATT.Opcode, _ error: RequestError, _ connection: ConnectionID) -> Action {
        .send(
            ATT.ErrorResponse(requestOpcode: request, handle: error.handle, error: error.code).encoded, to: connection)
    }

    /// Throws 0x01 Invalid Handle for a starting handle of 0x0000 or one above the ending handle (§3.4.3.1).
    static func checkRange(_ start: UInt16, _ end: UInt16) throws(RequestError) {
        guard start != 0, start <= end else { throw RequestError(.invalidHandle, start) }
    }

    /// The attribute at `handle`, or 0x01 Invalid Handle.
    func attribute(_ handle: UInt16) throws(RequestError) -> Attribute {
        guard let attribute = database.attribute(handle) else { throw RequestError(.invalidHandle, handle) }
        return attribute
    }

    /// What the application is told about an access to a characteristic value, CCCD or descriptor.
    func access(_ attribute: Attribute, _ connection: ConnectionID) -> Access {
        let isValue = if case .characteristicValue = attribute.role { true } else { false }
        return Access(
            connection: connection, handle: attribute.handle, service: attribute.service,
            characteristic: attribute.characteristic ?? attribute.type,
            characteristicValueHandle: attribute.valueHandle ?? attribute.handle,
            descriptor: isValue ? nil : attribute.type, security: security(of: connection))
    }
}
