import BLECore
import Synchronization

/// Hands the connection machine's ready session to the app's work, one piece of work at a time.
///
/// The shell offers each session its machine brought to ready (``offer(_:)``) and withdraws it when the link ends
/// (``withdraw(_:)``); work waits in ``lease(within:clock:waitingFor:failing:)`` until a session is offered and no
/// other work holds it, in the order it asked. The work runs in its own task, so a lost link reaches it as the GATT
/// error of its next request, exactly as it would reach an app. Work that asked to fail with the connection
/// (``AttemptPolicy/failWithTheAttempt``) is given up when an attempt fails while it waits (``attemptFailed(_:)``).
final class SessionBroker: Sendable {
    /// What a waiting piece of work is given.
    private enum Grant {
        case session(ProfileSession)
        case failed(any Error)
    }
    private struct Waiter {
        let id: UInt64
        let policy: AttemptPolicy
        /// nil: the wait was cancelled.
        let continuation: CheckedContinuation<Grant?, Never>
    }
    private struct State {
        var session: ProfileSession?
        var busy = false
        var waiters: [Waiter] = []
        var next: UInt64 = 0
        /// Set while the machine is in ``ConnectionState/error``: no session will come until a reset.
        var stopped: ConnectionMachineInError?
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
        waiter?.continuation.resume(returning: .session(session))
    }

    /// The link of `session` ended: it is offered no more.
    func withdraw(_ session: ProfileSession) {
        state.withLock { s in
            if s.session === session { s.session = nil }
        }
    }

    /// A connection attempt failed: every waiting work that fails with the attempt is given up with `failure`.
    func attemptFailed(_ failure: ConnectionAttemptFailed) {
        fail(with: failure) { $0.policy == .failWithTheAttempt }
    }

    /// The machine went to ``ConnectionState/error``: every waiting work fails with `error` now, and so does work
    /// that asks later, until ``machineRecovered()``. Nothing would come for it but the wait's limit.
    func machineFailed(_ error: ConnectionMachineInError) {
        fail(with: error, after: { $0.stopped = error }) { _ in true }
    }

    /// Under the lock, `update` the state, then take out the waiters `matching`; fails them with `error` after it.
    private func fail(
        with error: any Error, after update: (inout State) -> Void = { _ in }, matching: (Waiter) -> Bool
    ) {
        let failing = state.withLock { s -> [Waiter] in
            update(&s)
            let failing = s.waiters.filter(matching)
            s.waiters.removeAll(where: matching)
            return failing
        }
        for waiter in failing { waiter.continuation.resume(returning: .failed(error)) }
    }

    /// The machine left ``ConnectionState/error`` (a reset): work waits for a session again.
    func machineRecovered() { state.withLock { $0.stopped = nil } }

    /// Waits for a ready session no other work holds, at most `limit` on `clock`. Pair with ``release()``.
    func lease(
        within limit: Duration, clock: any RigClock, waitingFor what: String, failing policy: AttemptPolicy = .retry
    ) async throws -> ProfileSession {
        let grant = try await withTimeout(limit, clock: clock, waitingFor: what) { () async throws -> Grant in
            guard let grant = await self.wait(policy) else { throw CancellationError() }
            // Granted as the wait was given up: hand it on rather than hold it for nobody.
            if case .session = grant, Task.isCancelled {
                self.release()
                throw CancellationError()
            }
            return grant
        }
        switch grant {
        case .session(let session): return session
        case .failed(let failure): throw failure
        }
    }

    /// The work that held the session is done with it: the next one may have it.
    func release() {
        let handoff = state.withLock { s -> (Waiter, ProfileSession)? in
            s.busy = false
            guard let session = s.session, !s.waiters.isEmpty, usable() else { return nil }
            return (grant(&s), session)
        }
        if let (waiter, session) = handoff { waiter.continuation.resume(returning: .session(session)) }
    }

    private func grant(_ s: inout State) -> Waiter {
        s.busy = true
        return s.waiters.removeFirst()
    }

    /// The session (or the failed attempt) once it is this caller's turn; nil when the task was cancelled first (it
    /// holds nothing then).
    private func wait(_ policy: AttemptPolicy) async -> Grant? {
        let id = state.withLock { s -> UInt64 in
            s.next += 1
            return s.next
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Grant?, Never>) in
                let now = state.withLock { s -> (Grant?, Bool) in
                    if Task.isCancelled { return (nil, true) }
                    if let stopped = s.stopped { return (.failed(stopped), true) }
                    if !s.busy, s.waiters.isEmpty, let session = s.session, usable() {
                        s.busy = true
                        return (.session(session), true)
                    }
                    s.waiters.append(Waiter(id: id, policy: policy, continuation: continuation))
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

/// What a piece of work does when a connection attempt fails while it waits for its session.
public enum AttemptPolicy: Sendable, Hashable {
    /// Waits on: the machine tries again (with back-off, or after scanning again), as background work does.
    case retry
    /// Fails with the attempt (``ConnectionAttemptFailed``), as work a user waits for, or a test that must report a
    /// board that did not connect, does. The machine tries again only for other work.
    case failWithTheAttempt
}

/// Work asked for a session while the connection machine was in ``ConnectionState/error``, which only a reset
/// leaves (a board that refused pairing needs the user): it fails at once with the machine's reason.
public struct ConnectionMachineInError: Error, Sendable, CustomStringConvertible {
    public let reason: String
    public var description: String { "the connection machine is in error (\(reason)); only a reset leaves it" }
}

/// A connection attempt failed while work that fails with it (``AttemptPolicy/failWithTheAttempt``) waited.
public struct ConnectionAttemptFailed: Error, Sendable, CustomStringConvertible {
    public let attempt: LinkAttempt
    public var description: String { "\(attempt)" }
}
