/// Runs `operation` until it returns or `stop` returns, whichever comes first. When `stop` wins, the operation's
/// task is cancelled and its result still awaited, so an operation that keeps what it had done so far (a scan, a
/// GATT walk) hands it back. `stop` must return when its task is cancelled (the orchestrator's `RunControl.interrupted()` does); nil
/// means "never stop early". Structured: both children are finished when this returns, and the caller's own task
/// is never cancelled by it, so it can still clean up (close a link) afterwards.
public func runStoppable<T: Sendable>(
    until stop: (@Sendable () async -> Void)?, _ operation: @escaping @Sendable () async -> T
) async -> (value: T, stopped: Bool) {
    guard let stop else { return (await operation(), false) }
    return await withTaskGroup(of: StoppableEvent<T>.self) { group in
        group.addTask { .finished(await operation()) }
        group.addTask {
            await stop()
            return .stopRequested
        }
        var stopped = false
        var value: T?
        while let event = await group.next() {
            switch event {
            case let .finished(result):
                value = result
                group.cancelAll()
            case .stopRequested:
                // The stop waiter also returns when it is cancelled after the operation finished: only a stop that
                // comes first counts.
                if value == nil {
                    stopped = true
                    group.cancelAll()
                }
            }
        }
        return (value!, stopped)
    }
}

/// What finished first in ``runStoppable(until:_:)``.
private enum StoppableEvent<T: Sendable>: Sendable {
    case finished(T)
    case stopRequested
}
