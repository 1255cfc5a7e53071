extension GATTClientConnection {
    /// Runs one procedure to its end on the caller's task.
    func perform(_ procedure: GATTClient.Procedure) async throws(GATTError) -> GATTClient.Outcome {
        var effects = Effects()
        let id = state.withLock { state in
            state.nextID &+= 1
            let id = GATTClient.OperationID(state.nextID)
            state.callers[id] = Caller()
            let actions = state.client.start(procedure, id: id)
            state.apply(actions, &effects)
            return id
        }
        effects.run(link)
        return try await drive(id)
    }

    /// Sends whatever request is waiting, returns the result once there is one, else parks until something
    /// changes: a response, the transaction timer, the link going down, or cancellation.
    private func drive(_ id: GATTClient.OperationID) async throws(GATTError) -> GATTClient.Outcome {
        while true {
            await sendPendingRequests()
            if let result = takeResult(id) { return try result.get() }
            if Task.isCancelled {
                cancel(id)
                continue
            }
            await park(id)
        }
    }

    private func takeResult(_ id: GATTClient.OperationID) -> Result<GATTClient.Outcome, GATTError>? {
        state.withLock { state in
            guard let result = state.callers[id]?.result else { return nil }
            state.callers[id] = nil
            return result
        }
    }

    /// The caller's task was cancelled: the client drops or abandons the procedure and completes it.
    private func cancel(_ id: GATTClient.OperationID) {
        var effects = Effects()
        state.withLock { state in
            let actions = state.client.cancel(id)
            state.apply(actions, &effects)
            if state.callers[id]?.result == nil { state.callers[id]?.result = .failure(.cancelled("a procedure")) }
        }
        effects.run(link)
    }

    /// Takes pending requests to the bearer, one at a time, until none is left or another task is sending.
    private func sendPendingRequests() async {
        var next = state.withLock { [now = clock.now] in $0.takePendingRequest(now: now) }
        while let (pdu, arm) = next {
            if let arm { armLinkTimer(at: arm) }
            var failure: GATTError?
            do { try await bearer.send(pdu) } catch { failure = error }
            var effects = Effects()
            let now = clock.now
            next = state.withLock { state in
                state.isSending = false
                if let failure {
                    let actions = state.client.sendFailed(failure)
                    state.apply(actions, &effects)
                }
                return state.takePendingRequest(now: now)
            }
            effects.run(link)
        }
    }

    /// Parks until woken. When the link runs the transaction timer, that is all; otherwise the caller races the
    /// outstanding request's deadline, when there is one, with a timer child that wakes it whether or not the
    /// deadline still holds, so the caller re-arms with the current one.
    private func park(_ id: GATTClient.OperationID) async {
        let (linkTimers, deadline) = state.withLock { ($0.linkTimers == true, $0.client.deadline) }
        guard !linkTimers, let deadline else { return await suspend(id) }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { [clock] in
                do { try await clock.sleep(until: deadline, tolerance: nil) } catch { return }
                self.timerFired(for: id)
            }
            await suspend(id)
            group.cancelAll()
        }
    }

    /// Asks the link for a timer at `deadline`; records whether it keeps timers at all.
    private func armLinkTimer(at deadline: RigInstant) {
        let armed = link.schedule(at: deadline) { [weak self] in self?.linkTimerFired() }
        state.withLock { state in
            state.linkTimers = armed
            if !armed { state.linkTimerArmed = false }
        }
    }

    /// The link's timer: expires the outstanding request if its deadline has come, else re-arms for it.
    private func linkTimerFired() {
        var effects = Effects()
        let now = clock.now
        let rearm = state.withLock { state -> RigInstant? in
            state.linkTimerArmed = false
            guard state.downReason == nil else { return nil }
            let actions = state.client.expire(at: now)
            state.apply(actions, &effects)
            guard let deadline = state.client.deadline else { return nil }
            state.linkTimerArmed = true
            return deadline
        }
        effects.run(link)
        if let rearm { armLinkTimer(at: rearm) }
    }

    private func timerFired(for id: GATTClient.OperationID) {
        var effects = Effects()
        let now = clock.now
        state.withLock { state in
            let actions = state.client.expire(at: now)
            state.apply(actions, &effects)
            state.wake(id, &effects)
        }
        effects.run(link)
    }

    /// Suspends until another party resumes the caller; returns at once when there is already something to do.
    private func suspend(_ id: GATTClient.OperationID) async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let parked = state.withLock { state -> Bool in
                    guard !Task.isCancelled, let caller = state.callers[id], caller.result == nil,
                        !state.hasUnsentRequest
                    else { return false }
                    state.callers[id]!.continuation = continuation
                    return true
                }
                if !parked { continuation.resume() }
            }
        } onCancel: {
            var effects = Effects()
            state.withLock { $0.wake(id, &effects) }
            effects.run(link)
        }
    }
}
