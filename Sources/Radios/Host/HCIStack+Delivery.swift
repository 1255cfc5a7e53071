import BLECore

/// Delivering what the host reports, after the stack's lock is released: to the scans, the connection attempts,
/// the links' handlers and the observers.
extension HCIStack {
    func deliver(_ events: [HCIHost.Event]) {
        guard !events.isEmpty else { return }
        for event in events { handle(event) }
        let observers = state.withLock { $0.events }
        for observer in observers { for event in events { observer(event) } }
    }

    private func handle(_ event: HCIHost.Event) {
        switch event {
        case let .ready(info):
            let waiters = state.withLock { state in
                defer { state.readyWaiters = [] }
                return state.readyWaiters
            }
            for waiter in waiters { waiter.resume(returning: .success(info)) }
        case let .failed(error):
            failAll("\(error)", reason: .unspecifiedError)
        case let .advertisement(report):
            deliverAdvertisement(report)
        case let .connected(link):
            connected(link)
        case let .connectionFailed(peer, reason):
            timers.drop(.attempt(peer))
            state.withLock { $0.attempts.removeValue(forKey: peer) }?.resume(returning: .failure(reason))
        case let .disconnected(handle, reason):
            timers.drop(.link(handle))
            let (handler, waiters, drained) = state.withLock { state in
                (
                    state.links.removeValue(forKey: handle), state.sendWaiters.removeValue(forKey: handle),
                    state.host.links.isEmpty && !state.drainWaiters.isEmpty
                )
            }
            for waiter in waiters?.values ?? [:].values { waiter.resume() }
            handler?.linkDown(reason)
            if drained { resumeDrainWaiters() }
        case let .att(handle, pdu):
            let handler = state.withLock { $0.links[handle] }
            handler?.receive(pdu)
        case let .transmitReady(handle):
            let waiters = state.withLock { $0.sendWaiters.removeValue(forKey: handle) }
            for waiter in waiters?.values ?? [:].values { waiter.resume() }
        case let .parametersChanged(link):
            state.withLock { $0.links[link.handle] }?.parametersChanged(link)
        case .warning:
            state.withLock { $0.counters.warnings += 1 }
        case .parameterUpdateFailed, .dataLengthChanged, .phyChanged, .commandFailed:
            break
        }
    }

    private func connected(_ link: HCIHost.Link) {
        enum Next {
            case waiter(CheckedContinuation<Result<HCIHost.Link, HCIErrorCode>, Never>)
            case accept(@Sendable (HCIHost.Link) -> (any HCILinkHandler)?)
            case unwanted
        }
        let next = state.withLock { state -> Next in
            if link.role == .central, let waiter = state.attempts.removeValue(forKey: link.peer) {
                return .waiter(waiter)
            }
            if link.role == .peripheral, let accept = state.accept { return .accept(accept) }
            return .unwanted
        }
        if case .waiter = next { timers.drop(.attempt(link.peer)) }
        switch next {
        case let .waiter(waiter):
            waiter.resume(returning: .success(link))
        case let .accept(accept):
            if let handler = accept(link) {
                attach(handler, to: link.handle)
            } else {
                run { host, now in host.disconnect(link.handle, reason: .remoteUserTerminated, at: now) }
            }
        case .unwanted:
            // The attempt was given up (timeout, cancellation) just as the link came up: close it.
            run { host, now in host.disconnect(link.handle, reason: .remoteUserTerminated, at: now) }
        }
    }

    /// Routes a link's ATT PDUs and its end to `handler` from now on. PDUs arriving before this are dropped, so
    /// attach in the code that learns of the link, before awaiting anything.
    func attach(_ handler: any HCILinkHandler, to handle: UInt16) {
        let alive = state.withLock { state -> Bool in
            guard state.host.links[handle] != nil else { return false }
            state.links[handle] = handler
            return true
        }
        if !alive { handler.linkDown(.unknownConnectionIdentifier) }
    }
}
