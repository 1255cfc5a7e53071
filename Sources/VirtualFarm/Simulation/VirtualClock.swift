import BLECore
import Synchronization

/// The simulation's clock: `now` is the simulation's time, and `sleep` parks the task until the simulation reaches
/// the deadline. In virtual time sleeping costs no wall time; on the wall clock it lasts as long as it says. A
/// sleeping task that is cancelled wakes at once with `CancellationError`.
public struct VirtualClock: RigClock {
    let executor: SimulationExecutor

    init(executor: SimulationExecutor) { self.executor = executor }

    public var now: RigInstant { executor.now }

    public var minimumResolution: Duration { .nanoseconds(1) }

    public func sleep(until deadline: RigInstant, tolerance: Duration? = nil) async throws {
        try Task.checkCancellation()
        if deadline <= now { return }
        let sleeper = Sleeper()
        try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<Void, any Error>) in
                let executor = self.executor
                sleeper.start(continuation) {
                    executor.schedule(at: deadline) { sleeper.finish(nil) }
                }
            }
        } onCancel: {
            sleeper.finish(CancellationError())
        }
    }
}

/// One pending sleep: resumed exactly once, by its timer or by cancellation, whichever comes first.
private final class Sleeper: Sendable {
    private enum State {
        case idle
        case waiting(UnsafeContinuation<Void, any Error>)
        case done
    }

    private let state = Mutex(State.idle)

    /// Parks `continuation` and arms the timer, unless cancellation already came first.
    func start(_ continuation: UnsafeContinuation<Void, any Error>, arm: () -> Void) {
        let cancelledEarly = state.withLock { state -> Bool in
            if case .done = state { return true }
            state = .waiting(continuation)
            return false
        }
        if cancelledEarly { continuation.resume(throwing: CancellationError()) } else { arm() }
    }

    func finish(_ error: (any Error)?) {
        let continuation = state.withLock { state -> UnsafeContinuation<Void, any Error>? in
            defer { state = .done }
            if case let .waiting(continuation) = state { return continuation }
            return nil
        }
        if let error { continuation?.resume(throwing: error) } else { continuation?.resume() }
    }
}
