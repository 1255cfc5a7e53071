import Synchronization

/// A ``GATTConnection`` over one ATT bearer: the shell that carries out a ``GATTClient``'s actions.
///
/// Each caller's own task drives its procedure: it sends the requests (through the ``ATTBearer``, which may suspend
/// while the link is full) and waits for the answers. The transport pushes what arrives with ``receive(_:)`` and
/// reports the end of the link with ``linkDown(_:)``; both are plain synchronous calls that may come from any
/// context. Time comes only from the injected clock. The ATT transaction timeout is a timer the transport keeps
/// (``LinkControl/schedule(at:_:)``) when it offers one, else a structured race between the wait and
/// `clock.sleep(until:)`, so the connection runs unchanged in the virtual farm's simulation.
///
/// The state lives behind one mutex; continuations, streams and the transport are only called after it is released.
public final class GATTClientConnection: GATTConnection {
    public let peer: DeviceAddress
    let bearer: any ATTBearer
    let link: any LinkControl
    let clock: any RigClock
    let state: Mutex<State>

    /// - Parameters:
    ///   - localMTU: the receive MTU this side offers when the peer starts an MTU exchange; `exchangeMTU(preferred:)`
    ///     replaces it with its own preference.
    public init(
        peer: DeviceAddress, bearer: any ATTBearer, link: any LinkControl, clock: any RigClock,
        transactionTimeout: Duration = ATT.transactionTimeout, localMTU: UInt16 = ATT.maximumMTU
    ) {
        self.peer = peer
        self.bearer = bearer
        self.link = link
        self.clock = clock
        state = Mutex(State(client: GATTClient(localMTU: localMTU, transactionTimeout: transactionTimeout)))
    }

    /// The current ATT_MTU.
    public var mtu: UInt16 { state.withLock { $0.client.mtu } }

    /// Requests sent, responses received, pushed values and how many of them nobody subscribed to.
    public var statistics: GATTClient.Statistics { state.withLock { $0.client.statistics } }

    /// Why the link went down, or nil while it is up.
    public var disconnectReason: HCIErrorCode? { state.withLock { $0.downReason } }

    // MARK: - Pushed by the transport

    /// Hands the connection one complete ATT PDU from the peer. Synchronous and callable from any context: a
    /// response wakes the waiting caller, a notification or indication goes to its subscribers stamped with
    /// `clock.now` (an indication is confirmed at once through ``LinkControl/sendImmediately(_:)``). Call it once
    /// per PDU, in arrival order, from one context at a time.
    public func receive(_ pdu: [UInt8]) {
        let now = clock.now
        var effects = Effects()
        state.withLock { state in
            let actions = state.client.receive(pdu, at: now)
            state.apply(actions, &effects)
        }
        effects.run(link)
    }

    /// The link is down: every pending and queued operation fails with ``GATTError/disconnected(_:)``, every
    /// subscription stream finishes, ``disconnection()`` returns `reason`, and later calls fail at once. Only the
    /// first call counts.
    public func linkDown(_ reason: HCIErrorCode) {
        var effects = Effects()
        state.withLock { state in
            guard state.downReason == nil else { return }
            state.downReason = reason
            state.pendingRequest = nil
            let actions = state.client.linkDown(reason)
            state.apply(actions, &effects)
            effects.finished = state.subscriptions.values.flatMap(\.values)
            state.subscriptions = [:]
            effects.disconnected = Array(state.disconnectionWaiters.values)
            state.disconnectionWaiters = [:]
            effects.reason = reason
        }
        effects.run(link)
    }

    // MARK: - Link state

    /// Asks the transport to close the link and waits until it reports the link down.
    public func disconnect() async {
        guard disconnectReason == nil else { return }
        await link.disconnect()
        _ = await disconnection()
    }

    /// Waits until the link is down and returns why; returns at once when it already is. The protocol gives this
    /// call no way to fail, so a caller whose task is cancelled first gets 0x1F (unspecified error) at once.
    public func disconnection() async -> HCIErrorCode {
        let key = state.withLock { state in
            state.nextKey &+= 1
            return state.nextKey
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<HCIErrorCode, Never>) in
                let now = state.withLock { state -> HCIErrorCode? in
                    if let reason = state.downReason { return reason }
                    if Task.isCancelled { return .unspecifiedError }
                    state.disconnectionWaiters[key] = continuation
                    return nil
                }
                if let now { continuation.resume(returning: now) }
            }
        } onCancel: {
            state.withLock { $0.disconnectionWaiters.removeValue(forKey: key) }?.resume(returning: .unspecifiedError)
        }
    }
}
