/// The GATT client procedures (Core 5.4 Vol 3 Part G §4) as a state machine with no I/O: events in (a procedure to
/// start, a received PDU, a timer that ran out, the link going down), ``Action``s out (a request to send, a reply to
/// send, a procedure completed, a value delivered). ``GATTClientConnection`` is the shell that carries the actions
/// out over an ``ATTBearer``.
///
/// It keeps the ATT rule of one outstanding request per bearer (Vol 3 Part F §3.3.2): procedures queue and run in
/// order. A misbehaving server cannot trap it or make it loop: a response that does not answer the request, handles
/// that do not move forward, a range that ends before it starts or bytes that do not decode end the procedure with
/// ``GATTError/invalidResponse(_:)``. An Error Response ends it with ``GATTError/att(_:request:handle:)``, except
/// Attribute Not Found, which ends a discovery normally.
public struct GATTClient: Sendable {
    /// The current ATT_MTU.
    public internal(set) var mtu: UInt16 = ATT.defaultMTU
    /// The receive MTU this side offers: sent in its own Exchange MTU Request and in answer to the peer's.
    public internal(set) var localMTU: UInt16
    /// How long a request may go unanswered (Vol 3 Part F §3.3.3).
    public let transactionTimeout: Duration
    public internal(set) var statistics = Statistics()
    /// Set once the bearer can carry no more requests: after a transaction timed out, or the link went down.
    /// Every procedure started afterwards completes at once with this error.
    public private(set) var failure: GATTError?

    var mtuExchangeStarted = false
    var active: Active?
    var queue: [(id: OperationID, procedure: Procedure)] = []

    public init(localMTU: UInt16 = ATT.maximumMTU, transactionTimeout: Duration = ATT.transactionTimeout) {
        self.localMTU = min(max(localMTU, ATT.defaultMTU), ATT.maximumMTU)
        self.transactionTimeout = transactionTimeout
    }

    /// When the outstanding request times out; nil when none is outstanding or it has not been sent yet.
    public var deadline: RigInstant? { active?.deadline }
    /// The running procedure, unless its caller went away (see ``cancel(_:)``).
    public var activeOperation: OperationID? { active.flatMap { $0.abandoned ? nil : $0.id } }
    /// True when no procedure is running or queued.
    public var isIdle: Bool { active == nil && queue.isEmpty }

    /// Starts a procedure, or queues it behind the running one.
    public mutating func start(_ procedure: Procedure, id: OperationID) -> [Action] {
        if let failure { return [.complete(id, .failure(failure))] }
        queue.append((id, procedure))
        var actions: [Action] = []
        if active == nil { activateNext(&actions) }
        return actions
    }

    /// The shell handed the request of the last ``Action/send(_:)`` to the bearer: its timer starts now.
    public mutating func didSend(at now: RigInstant) {
        guard active != nil, active!.deadline == nil else { return }
        active!.deadline = now.advanced(by: transactionTimeout)
        statistics.requestsSent += 1
    }

    /// The bearer could not send the outstanding request: the procedure fails with `error` and the next starts.
    public mutating func sendFailed(_ error: GATTError) -> [Action] {
        guard let running = active else { return [] }
        var actions: [Action] = []
        finish(running, .failure(error), &actions)
        return actions
    }

    /// The caller of `id` went away. A queued procedure is dropped. A running one completes now for its caller
    /// but keeps the bearer until its outstanding response arrives (ATT allows no second request before it);
    /// then it stops, cancelling any prepared writes first.
    public mutating func cancel(_ id: OperationID) -> [Action] {
        if let index = queue.firstIndex(where: { $0.id == id }) {
            let (_, procedure) = queue.remove(at: index)
            return [.complete(id, .failure(.cancelled(procedure.summary)))]
        }
        guard let running = active, running.id == id, !running.abandoned else { return [] }
        active!.abandoned = true
        return [.complete(id, .failure(.cancelled(running.procedure.summary)))]
    }

    /// Checks the transaction timer. Once the outstanding request is `transactionTimeout` old, it and every queued
    /// procedure fail with ``GATTError/timeout(request:)`` and the bearer takes no more requests (§3.3.3).
    public mutating func expire(at now: RigInstant) -> [Action] {
        guard let running = active, let deadline = running.deadline, now >= deadline else { return [] }
        return failAll(.timeout(request: running.request))
    }

    /// The link went down: every procedure fails with ``GATTError/disconnected(_:)``, now and from now on.
    public mutating func linkDown(_ reason: HCIErrorCode) -> [Action] {
        failAll(.disconnected(reason))
    }

    /// Encodes a Write Command (Vol 3 Part F §3.4.5.3) for the bearer. It is no transaction: it needs no slot and
    /// gets no answer. Throws when the value exceeds ATT_MTU − 3 bytes or the bearer has failed.
    public mutating func writeCommand(_ value: [UInt8], to handle: UInt16) throws(GATTError) -> [UInt8] {
        if let failure { throw failure }
        guard value.count <= Int(mtu) - 3 else {
            throw .unsupported(
                "Write Command of \(value.count) byte(s) on handle \(ATT.hex(handle)) exceeds ATT_MTU − 3 = "
                    + "\(Int(mtu) - 3); write it with a Write Request or raise the MTU")
        }
        statistics.commandsSent += 1
        return ATT.WriteCommand(handle: handle, value: value).encoded
    }

    // MARK: - Running procedures

    /// Ends `running` (reporting `result` unless its caller went away) and starts the next queued procedure.
    mutating func finish(_ running: Active, _ result: Result<Outcome, GATTError>, _ actions: inout [Action]) {
        active = nil
        if !running.abandoned { actions.append(.complete(running.id, result)) }
        activateNext(&actions)
    }

    /// Starts queued procedures until one sends a request; those that need none complete on the spot.
    mutating func activateNext(_ actions: inout [Action]) {
        while active == nil, !queue.isEmpty {
            let (id, procedure) = queue.removeFirst()
            switch begin(procedure) {
            case .request(let progress, let pdu, let request, let handle):
                active = Active(id: id, procedure: procedure, progress: progress, request: request, handle: handle)
                actions.append(.send(pdu))
            case .finish(let result):
                actions.append(.complete(id, result))
            }
        }
    }

    /// Applies the next step of the running procedure.
    mutating func advance(_ running: Active, _ step: Step, _ actions: inout [Action]) {
        switch step {
        case .request(let progress, let pdu, let request, let handle):
            var next = running
            next.progress = progress
            next.request = request
            next.handle = handle
            next.deadline = nil
            active = next
            actions.append(.send(pdu))
        case .finish(let result):
            finish(running, result, &actions)
        }
    }

    private mutating func failAll(_ error: GATTError) -> [Action] {
        // A link that goes down after a timeout reports the disconnection from then on; the first reason sticks.
        switch (failure, error) {
        case (nil, _), (.timeout?, .disconnected): failure = error
        default: break
        }
        var actions: [Action] = []
        if let running = active, !running.abandoned { actions.append(.complete(running.id, .failure(error))) }
        active = nil
        actions += queue.map { .complete($0.id, .failure(error)) }
        queue.removeAll()
        return actions
    }
}
