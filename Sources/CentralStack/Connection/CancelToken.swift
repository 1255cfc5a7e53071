import Synchronization

/// Ends one piece of a shell's work on request: ``race(_:)`` runs an operation until it finishes or ``cancel()``
/// is called (or the task is cancelled), whichever comes first; the operation's task is then cancelled and
/// awaited. A task group can only cancel all its children; this cancels one.
final class CancelToken: Sendable {
    private struct State {
        var cancelled = false
        var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
        var next: UInt64 = 0
    }
    private let state = Mutex(State())

    var isCancelled: Bool { state.withLock { $0.cancelled } }

    func cancel() {
        let waiters = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            s.cancelled = true
            defer { s.waiters = [:] }
            return Array(s.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once cancelled, or once the calling task is cancelled.
    func wait() async {
        let id = state.withLock { s -> UInt64 in
            s.next += 1
            return s.next
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { s -> Bool in
                    if s.cancelled || Task.isCancelled { return true }
                    s.waiters[id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.resume()
        }
    }

    /// Runs `operation` until it returns or the token is cancelled; nil when cancelled first.
    func race<T: Sendable>(_ operation: @escaping @Sendable () async -> T) async -> T? {
        await withTaskGroup(of: T?.self) { group in
            group.addTask { await operation() }
            group.addTask {
                await self.wait()
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }
}
