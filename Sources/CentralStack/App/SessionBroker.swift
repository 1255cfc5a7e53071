import BLECore
import Synchronization

/// Hands the connection machine's ready session to the app's work, one piece of work at a time.
///
/// The shell offers each session its machine brought to ready (``offer(_:)``) and withdraws it when the link ends
/// (``withdraw(_:)``); work waits in ``lease(within:clock:waitingFor:)`` until a session is offered and no other
/// work holds it, in the order it asked. The work runs in its own task, so a lost link reaches it as the GATT
/// error of its next request, exactly as it would reach an app.
final class SessionBroker: Sendable {
    private struct Waiter {
        let id: UInt64
        let continuation: CheckedContinuation<ProfileSession?, Never>
    }
    private struct State {
        var session: ProfileSession?
        var busy = false
        var waiters: [Waiter] = []
        var next: UInt64 = 0
    }
    private let state = Mutex(State())
    /// Whether the session offered may take new work: not when the machine already chose to close its link.
    private let usability = Mutex<@Sendable () -> Bool>({ true })

    /// Sets what says whether the offered session may take new work (see ``ConnectionShell/closingLink``).
    func usable(when test: @escaping @Sendable () -> Bool) { usability.withLock { $0 = test } }

    private func usable() -> Bool { usability.withLock { $0 }() }

    /// The session now offered, if any.
    var current: ProfileSession? { state.withLock { $0.session } }

    /// A ready session: the first waiting work gets it.
    func offer(_ session: ProfileSession) {
        let waiter = state.withLock { s -> Waiter? in
            s.session = session
            return s.busy || s.waiters.isEmpty || !usable() ? nil : grant(&s)
        }
        waiter?.continuation.resume(returning: session)
    }

    /// The link of `session` ended: it is offered no more.
    func withdraw(_ session: ProfileSession) {
        state.withLock { s in
            if s.session === session { s.session = nil }
        }
    }

    /// Waits for a ready session no other work holds, at most `limit` on `clock`. Pair with ``release()``.
    func lease(within limit: Duration, clock: any RigClock, waitingFor what: String) async throws(SessionError)
        -> ProfileSession
    {
        let session = try await withTimeout(limit, clock: clock, waitingFor: what) {
            guard let session = await self.wait() else { throw CancellationError() }
            // Granted as the wait was given up: hand it on rather than hold it for nobody.
            if Task.isCancelled {
                self.release()
                throw CancellationError()
            }
            return session
        }
        return session
    }

    /// The work that held the session is done with it: the next one may have it.
    func release() {
        let handoff = state.withLock { s -> (Waiter, ProfileSession)? in
            s.busy = false
            guard let session = s.session, !s.waiters.isEmpty, usable() else { return nil }
            return (grant(&s), session)
        }
        if let (waiter, session) = handoff { waiter.continuation.resume(returning: session) }
    }

    private func grant(_ s: inout State) -> Waiter {
        s.busy = true
        return s.waiters.removeFirst()
    }

    /// The session once it is this caller's turn; nil when the task was cancelled first (it holds nothing then).
    private func wait() async -> ProfileSession? {
        let id = state.withLock { s -> UInt64 in
            s.next += 1
            return s.next
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<ProfileSession?, Never>) in
                let now = state.withLock { s -> (ProfileSession?, Bool) in
                    if Task.isCancelled { return (nil, true) }
                    if !s.busy, s.waiters.isEmpty, let session = s.session, usable() {
                        s.busy = true
                        return (session, true)
                    }
                    s.waiters.append(Waiter(id: id, continuation: continuation))
                    return (nil, false)
                }
                if now.1 { continuation.resume(returning: now.0) }
            }
        } onCancel: {
            let waiter = state.withLock { s -> Waiter? in
                guard let index = s.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return s.waiters.remove(at: index)
            }
            waiter?.continuation.resume(returning: nil)
        }
    }
}
