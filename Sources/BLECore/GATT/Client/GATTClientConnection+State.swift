extension GATTClientConnection {
    /// Everything behind the connection's mutex.
    struct State {
        var client: GATTClient
        var nextID: UInt64 = 0
        var nextKey: UInt64 = 0
        var callers: [GATTClient.OperationID: Caller] = [:]
        /// The request of the last `.send` action, until a task takes it to the bearer.
        var pendingRequest: [UInt8]?
        /// A task is inside `bearer.send` with a request; it takes the next pending one when it returns.
        var isSending = false
        var subscriptions: [UInt16: [UInt64: AsyncStream<GATT.ValueEvent>.Continuation]] = [:]
        var downReason: HCIErrorCode?
        /// Whether the link runs the transaction timer (``LinkControl/schedule(at:_:)``); nil until the first request
        /// has asked it.
        var linkTimers: Bool?
        /// A link timer is armed, for a deadline no later than the outstanding request's.
        var linkTimerArmed = false
        var disconnectionWaiters: [UInt64: CheckedContinuation<HCIErrorCode, Never>] = [:]

        init(client: GATTClient) { self.client = client }

        /// Turns the client's actions into state changes and collects what must happen outside the lock.
        mutating func apply(_ actions: [GATTClient.Action], _ effects: inout Effects) {
            for action in actions {
                switch action {
                case .send(let pdu):
                    pendingRequest = pdu
                    wakeSender(&effects)
                case .reply(let pdu):
                    effects.replies.append(pdu)
                case .complete(let id, let result):
                    guard callers[id] != nil else { continue }
                    callers[id]!.result = result
                    wake(id, &effects)
                case .deliver(let event):
                    guard let subscribers = subscriptions[event.handle], !subscribers.isEmpty else {
                        client.statistics.unsubscribedValuesDropped += 1
                        continue
                    }
                    for subscriber in subscribers.values { effects.events.append((subscriber, event)) }
                }
            }
        }

        /// Finds a task to take the pending request to the bearer: the caller of the running procedure, or, when
        /// that caller went away, any parked caller. A task already sending takes it when it returns; a caller
        /// about to park sees it and stays awake.
        private mutating func wakeSender(_ effects: inout Effects) {
            guard !isSending else { return }
            if let id = client.activeOperation, callers[id] != nil {
                wake(id, &effects)
            } else if let id = callers.first(where: { $0.value.continuation != nil })?.key {
                wake(id, &effects)
            }
        }

        mutating func wake(_ id: GATTClient.OperationID, _ effects: inout Effects) {
            guard let continuation = callers[id]?.continuation else { return }
            callers[id]!.continuation = nil
            effects.wake.append(continuation)
        }

        /// Takes the pending request for sending, unless another task is already sending; starts its timer. Returns
        /// the deadline to arm a link timer for, when one should be armed.
        mutating func takePendingRequest(now: RigInstant) -> (pdu: [UInt8], arm: RigInstant?)? {
            guard !isSending, let pdu = pendingRequest else { return nil }
            pendingRequest = nil
            isSending = true
            client.didSend(at: now)
            guard linkTimers != false, !linkTimerArmed, let deadline = client.deadline else { return (pdu, nil) }
            linkTimerArmed = true
            return (pdu, deadline)
        }

        /// True when a request waits for a task to send it.
        var hasUnsentRequest: Bool { pendingRequest != nil && !isSending }
    }

    /// A task waiting for its procedure.
    struct Caller {
        var result: Result<GATTClient.Outcome, GATTError>?
        /// Set while the task is parked.
        var continuation: CheckedContinuation<Void, Never>?
    }

    /// Work collected under the lock, done after it is released. Values are delivered before replies go out, so a
    /// transport that answers a confirmation with the next indication on the spot cannot reorder them.
    struct Effects {
        var events: [(AsyncStream<GATT.ValueEvent>.Continuation, GATT.ValueEvent)] = []
        var replies: [[UInt8]] = []
        var wake: [CheckedContinuation<Void, Never>] = []
        var finished: [AsyncStream<GATT.ValueEvent>.Continuation] = []
        var disconnected: [CheckedContinuation<HCIErrorCode, Never>] = []
        var reason = HCIErrorCode.unspecifiedError

        func run(_ link: any LinkControl) {
            for (subscriber, event) in events { subscriber.yield(event) }
            for reply in replies { link.sendImmediately(reply) }
            for continuation in wake { continuation.resume() }
            for subscriber in finished { subscriber.finish() }
            for continuation in disconnected { continuation.resume(returning: reason) }
        }
    }
}
