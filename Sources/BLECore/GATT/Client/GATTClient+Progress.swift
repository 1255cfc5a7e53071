extension GATTClient {
    /// The running procedure and its outstanding request.
    struct Active: Sendable {
        var id: OperationID
        var procedure: Procedure
        var progress: Progress
        /// The outstanding request's opcode and the handle it is about (the start of a discovery range).
        var request: ATT.Opcode
        var handle: UInt16
        /// Set when the request was handed to the bearer.
        var deadline: RigInstant?
        /// The caller went away; the procedure only winds down.
        var abandoned = false
    }

    /// How far a running procedure got; what the next response continues.
    enum Progress: Sendable {
        case exchangeMTU(clientRxMTU: UInt16)
        case primaryServices(uuid: BluetoothUUID?, start: UInt16, found: [GATT.Service])
        case characteristics(service: GATT.Service, start: UInt16, found: [GATT.Characteristic])
        case descriptors(range: ClosedRange<UInt16>, start: UInt16, found: [GATT.Descriptor])
        /// A read, then Read Blobs; `value` holds what arrived so far.
        case read(handle: UInt16, value: [UInt8])
        case readMultiple(handles: [UInt16], variable: Bool)
        case readByType(range: ClosedRange<UInt16>)
        case write(handle: UInt16)
        /// Prepare Write Requests, then the Execute Write.
        case queuedWrite(parts: [ATT.PrepareWriteRequest], next: Int)
        case executingWrite
        /// An Execute Write that cancels the prepared parts; then the procedure ends with `failure`.
        case cancellingQueuedWrite(failure: GATTError)
    }

    /// What a procedure does next.
    enum Step: Sendable {
        case request(Progress, [UInt8], ATT.Opcode, handle: UInt16)
        case finish(Result<Outcome, GATTError>)

        static func send<M: ATTMessage>(_ message: M, handle: UInt16, then progress: Progress) -> Step {
            .request(progress, message.encoded, M.opcode, handle: handle)
        }

        static func done(_ outcome: Outcome) -> Step { .finish(.success(outcome)) }
        static func fail(_ error: GATTError) -> Step { .finish(.failure(error)) }
    }

    /// Where a response belongs, to build errors that say what was wrong and where.
    struct ResponseContext {
        let request: ATT.Opcode
        let handle: UInt16
        let procedure: Procedure

        init(_ running: Active) {
            request = running.request
            handle = running.handle
            procedure = running.procedure
        }

        /// `invalid response: <what> (answering Read Request at handle 0x0003 in Read on handle 0x0003)`.
        func invalidError(_ what: String) -> GATTError {
            .invalidResponse("\(what) (answering \(request) at handle \(ATT.hex(handle)) in \(procedure.summary))")
        }

        func invalid(_ what: String) -> Step { .fail(invalidError(what)) }

        func unexpected(_ pdu: ATT.PDU) -> Step { invalid("got \(pdu.opcode) (\(ATT.hex(pdu.opcode.rawValue)))") }

        func failed(_ error: ATT.ErrorResponse) -> Step {
            .fail(.att(error.error, request: error.requestOpcode, handle: error.handle))
        }
    }

    /// The first step of a procedure, taken when it reaches the head of the queue.
    mutating func begin(_ procedure: Procedure) -> Step {
        switch procedure {
        case .exchangeMTU(let preferred): beginExchangeMTU(preferred)
        case .discoverPrimaryServices(let uuid): Self.requestServices(uuid, from: 0x0001, found: [])
        case .discoverCharacteristics(let service):
            Self.requestCharacteristics(of: service, from: service.handles.lowerBound, found: [])
        case .discoverDescriptors(let characteristic):
            characteristic.descriptorHandles.map { Self.requestDescriptors(in: $0, from: $0.lowerBound, found: []) }
                ?? .done(.descriptors([]))
        case .read(let handle):
            .send(ATT.ReadRequest(handle: handle), handle: handle, then: .read(handle: handle, value: []))
        case .readMultiple(let handles): Self.beginReadMultiple(handles, variable: false)
        case .readMultipleVariable(let handles): Self.beginReadMultiple(handles, variable: true)
        case .readByType(let type, let range): Self.beginReadByType(type, range)
        case .write(let value, let handle): beginWrite(value, to: handle)
        case .reliableWrite(let items): beginReliableWrite(items)
        }
    }

    /// A PDU arrived that is not a push and not a request from the peer: it answers the outstanding request.
    mutating func receiveResponse(_ bytes: [UInt8]) -> [Action] {
        guard let running = active, running.deadline != nil else {
            statistics.ignoredPDUs += 1
            return []
        }
        statistics.responsesReceived += 1
        let context = ResponseContext(running)
        let step: Step
        do throws(DecodingError) {
            step = respond(running.progress, to: try ATT.PDU(decoding: bytes), context)
        } catch {
            step = Self.reject(running.progress, context.invalidError("\(error)"))
        }
        var actions: [Action] = []
        if running.abandoned { windDown(running, step, &actions) } else { advance(running, step, &actions) }
        return actions
    }

    private mutating func respond(_ progress: Progress, to pdu: ATT.PDU, _ context: ResponseContext) -> Step {
        if case .errorResponse(let error) = pdu, error.requestOpcode != context.request {
            let what = "Error Response \(error.error) names \(error.requestOpcode) as the failed request"
            return Self.reject(progress, context.invalidError(what))
        }
        switch progress {
        case .exchangeMTU(let clientRxMTU): return exchangedMTU(clientRxMTU, pdu, context)
        case .primaryServices(let uuid, let start, let found):
            return Self.discoveredServices(uuid, start, found, pdu, context)
        case .characteristics(let service, let start, let found):
            return Self.discoveredCharacteristics(service, start, found, pdu, context)
        case .descriptors(let range, let start, let found):
            return Self.discoveredDescriptors(range, start, found, pdu, context)
        case .read(let handle, let value): return readPart(handle, value, pdu, context)
        case .readMultiple(let handles, let variable): return readMultiple(handles, variable, pdu, context)
        case .readByType(let range): return readByType(range, pdu, context)
        case .write: return Self.wrote(pdu, context)
        case .queuedWrite(let parts, let next): return Self.prepared(parts, next, pdu, context)
        case .executingWrite: return Self.executed(pdu, context)
        // Whatever answers the cancelling Execute Write, the procedure ends with the failure that caused it.
        case .cancellingQueuedWrite(let failure): return .fail(failure)
        }
    }

    /// Ends the procedure with `error`; a Prepare Write may have queued something, so cancel what the server holds
    /// first.
    private static func reject(_ progress: Progress, _ error: GATTError) -> Step {
        progress.mayHoldPreparedWrites ? cancelPreparedWrites(error) : .fail(error)
    }

    /// The caller of `running` went away: stop at this response, but never leave prepared writes on the server.
    private mutating func windDown(_ running: Active, _ step: Step, _ actions: inout [Action]) {
        let failure = GATTError.cancelled(running.procedure.summary)
        switch (running.progress, step) {
        case (_, .request(.cancellingQueuedWrite, _, _, _)):
            advance(running, step, &actions)
        case (.queuedWrite, .request):
            advance(running, Self.cancelPreparedWrites(failure), &actions)
        default:
            finish(running, .failure(failure), &actions)
        }
    }
}
