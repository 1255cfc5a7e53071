extension GATTClient {
    /// A PDU arrived from the peer, at `now`. Responses go to the running procedure; notifications and
    /// indications become ``Action/deliver(_:)`` (an indication also a confirmation to send); requests the peer
    /// makes in its own client role are answered as by a server with no attributes.
    public mutating func receive(_ pdu: [UInt8], at now: RigInstant) -> [Action] {
        if case .disconnected = failure {
            statistics.ignoredPDUs += 1
            return []
        }
        guard let first = pdu.first else { return receiveResponse(pdu) }
        switch ATT.Opcode(rawValue: first) {
        case .handleValueNotification, .handleValueIndication, .multipleHandleValueNotification:
            return receivePush(pdu, at: now)
        case .exchangeMTURequest, .findInformationRequest, .findByTypeValueRequest, .readByTypeRequest, .readRequest,
            .readBlobRequest, .readMultipleRequest, .readByGroupTypeRequest, .readMultipleVariableRequest,
            .writeRequest,
            .prepareWriteRequest, .executeWriteRequest:
            return answerPeer(pdu)
        case let opcode where opcode.isCommand:
            // Commands never get an answer (Vol 3 Part F §3.3); this side has no attributes to write.
            statistics.ignoredPDUs += 1
            return []
        default:
            return receiveResponse(pdu)
        }
    }

    // MARK: - Exchange MTU (Vol 3 Part G §4.3.1)

    mutating func beginExchangeMTU(_ preferred: UInt16) -> Step {
        guard !mtuExchangeStarted else { return .done(.mtu(mtu)) }
        mtuExchangeStarted = true
        let clientRxMTU = min(max(preferred, ATT.defaultMTU), ATT.maximumMTU)
        localMTU = clientRxMTU
        return .send(
            ATT.ExchangeMTURequest(clientRxMTU: clientRxMTU), handle: 0, then: .exchangeMTU(clientRxMTU: clientRxMTU))
    }

    mutating func exchangedMTU(_ clientRxMTU: UInt16, _ pdu: ATT.PDU, _ context: ResponseContext) -> Step {
        switch pdu {
        case .exchangeMTUResponse(let response):
            mtu = Self.effectiveMTU(clientRxMTU, response.serverRxMTU)
            return .done(.mtu(mtu))
        case .errorResponse(let error):
            return context.failed(error)
        default:
            return context.unexpected(pdu)
        }
    }

    /// min(client, server); a value below 23 leaves the default (Vol 3 Part F §3.4.2.2).
    static func effectiveMTU(_ client: UInt16, _ server: UInt16) -> UInt16 {
        client < ATT.defaultMTU || server < ATT.defaultMTU ? ATT.defaultMTU : min(client, server)
    }

    // MARK: - Notifications and indications (§4.10, §4.11)

    private mutating func receivePush(_ bytes: [UInt8], at now: RigInstant) -> [Action] {
        let pdu: ATT.PDU
        do throws(DecodingError) {
            pdu = try ATT.PDU(decoding: bytes)
        } catch {
            statistics.ignoredPDUs += 1
            // Confirm even a malformed indication: until it is confirmed the server can send no other.
            return bytes.first == ATT.Opcode.handleValueIndication.rawValue ? confirm() : []
        }
        switch pdu {
        case .handleValueNotification(let notification):
            statistics.notificationsReceived += 1
            return [
                .deliver(
                    GATT.ValueEvent(
                        handle: notification.handle, value: notification.value, kind: .notification, received: now))
            ]
        case .handleValueIndication(let indication):
            statistics.indicationsReceived += 1
            let event = GATT.ValueEvent(
                handle: indication.handle, value: indication.value, kind: .indication, received: now)
            return [.deliver(event)] + confirm()
        case .multipleHandleValueNotification(let notification):
            statistics.notificationsReceived += notification.entries.count
            return notification.entries.map {
                .deliver(GATT.ValueEvent(handle: $0.handle, value: $0.value, kind: .notification, received: now))
            }
        default:
            return []
        }
    }

    /// A Handle Value Confirmation, unless the bearer has failed and may carry nothing more (§3.3.3).
    private mutating func confirm() -> [Action] {
        guard failure == nil else { return [] }
        statistics.repliesSent += 1
        return [.reply(ATT.HandleValueConfirmation().encoded)]
    }

    // MARK: - Requests from the peer

    /// Answers a request the peer sent in its client role: Exchange MTU for real, everything else as a server
    /// without attributes (Attribute Not Found for discovery, Invalid Handle for reads and writes).
    private mutating func answerPeer(_ bytes: [UInt8]) -> [Action] {
        guard failure == nil else {
            statistics.ignoredPDUs += 1
            return []
        }
        let answer: any ATTMessage
        do throws(DecodingError) {
            switch try ATT.PDU(decoding: bytes) {
            case .exchangeMTURequest(let request):
                mtu = Self.effectiveMTU(localMTU, request.clientRxMTU)
                answer = ATT.ExchangeMTUResponse(serverRxMTU: localMTU)
            case .findInformationRequest(let request):
                answer = Self.refuse(request, request.startingHandle, .attributeNotFound)
            case .findByTypeValueRequest(let request):
                answer = Self.refuse(request, request.startingHandle, .attributeNotFound)
            case .readByTypeRequest(let request):
                answer = Self.refuse(request, request.startingHandle, .attributeNotFound)
            case .readByGroupTypeRequest(let request):
                answer = Self.refuse(request, request.startingHandle, .attributeNotFound)
            case .readRequest(let request): answer = Self.refuse(request, request.handle, .invalidHandle)
            case .readBlobRequest(let request): answer = Self.refuse(request, request.handle, .invalidHandle)
            case .readMultipleRequest(let request): answer = Self.refuse(request, request.handles[0], .invalidHandle)
            case .readMultipleVariableRequest(let request):
                answer = Self.refuse(request, request.handles[0], .invalidHandle)
            case .writeRequest(let request): answer = Self.refuse(request, request.handle, .invalidHandle)
            case .prepareWriteRequest(let request): answer = Self.refuse(request, request.handle, .invalidHandle)
            case .executeWriteRequest: answer = ATT.ExecuteWriteResponse()  // nothing was ever prepared here
            case let other:
                answer = ATT.ErrorResponse(requestOpcode: other.opcode, handle: 0, error: .requestNotSupported)
            }
        } catch {
            answer = ATT.ErrorResponse(requestOpcode: ATT.Opcode(rawValue: bytes[0]), handle: 0, error: .invalidPDU)
        }
        statistics.repliesSent += 1
        return [.reply(answer.encoded)]
    }

    private static func refuse<M: ATTMessage>(_: M, _ handle: UInt16, _ error: ATT.ErrorCode) -> ATT.ErrorResponse {
        ATT.ErrorResponse(requestOpcode: M.opcode, handle: handle, error: error)
    }
}
