import BLECore
import Foundation
import Synchronization

/// One deterministic simulation: a virtual clock, a seed, and an executor that runs every task of the
/// simulation on one thread. Everything a simulation owns (radios, links, boards) lives on that thread.
public final class Simulation: Sendable {
    public let seed: UInt64
    public let clock: VirtualClock
    let executor: SimulationExecutor

    private init(seed: UInt64) {
        self.seed = seed
        executor = SimulationExecutor()
        clock = VirtualClock(executor: executor)
    }

    /// Virtual time now.
    public var now: RigInstant { executor.now }

    /// Runs `body` inside a new simulation and returns its result. Virtual time starts at zero and advances
    /// only while every task of the simulation waits; a run that would pass `horizon` of virtual time, or that
    /// stalls with nothing left to wake it, is cancelled and reported as ``SimulationError``.
    public static func run<T: Sendable>(
        seed: UInt64,
        horizon: Duration = .seconds(400 * 24 * 3600),
        _ body: @escaping @Sendable (Simulation) async throws -> T
    ) async throws -> T {
        let simulation = Simulation(seed: seed)
        let finished = Atomic(false)
        let task = Task(executorPreference: simulation.executor) {
            defer { finished.store(true, ordering: .releasing) }
            return try await body(simulation)
        }
        let executor = simulation.executor
        let limit = RigInstant(sinceOrigin: horizon)
        let stop = await onOwnThread {
            let first = executor.run(horizon: limit) { finished.load(ordering: .acquiring) }
            guard first != .finished else { return first }
            // Let the tasks unwind: cancellation wakes every sleeper and most waits.
            task.cancel()
            _ = executor.run(horizon: .init(sinceOrigin: .seconds(Int64.max / 2))) {
                finished.load(ordering: .acquiring)
            }
            return first
        }
        switch stop {
        case .finished: return try await task.value
        case .deadlock: throw SimulationError.stalled(at: simulation.now)
        case .horizon: throw SimulationError.horizonReached(horizon)
        }
    }

    /// Runs `action` on the simulation thread at `deadline`. Only simulation components call this; the action
    /// may capture their state, which is confined to the simulation thread.
    @discardableResult
    func schedule(at deadline: RigInstant, _ action: @escaping () -> Void) -> TimerQueue.ID {
        let confined = SimulationConfined(action)
        return executor.schedule(at: deadline) { confined.value() }
    }

    @discardableResult
    func schedule(after delay: Duration, _ action: @escaping () -> Void) -> TimerQueue.ID {
        schedule(at: now.advanced(by: delay), action)
    }

    func cancel(_ timer: TimerQueue.ID) { executor.cancel(timer) }

    /// Jobs run and timers fired so far (for benchmarks).
    public var work: (jobs: Int, timers: Int) { (executor.jobsRun, executor.timersFired) }

    /// Traps when called off the simulation thread: simulation components are confined to it.
    func assertIsolated(_ file: StaticString = #fileID, _ line: UInt = #line) {
        precondition(executor.isOnSimulationThread, "simulation state touched off the simulation thread", file: file, line: line)
    }
}

/// Why a simulation ended without a result.
public enum SimulationError: Error, Equatable, CustomStringConvertible {
    /// Every task waited on something nothing would ever provide.
    case stalled(at: RigInstant)
    /// Virtual time would have passed the run's horizon.
    case horizonReached(Duration)

    public var description: String {
        switch self {
        case let .stalled(at): "the simulation stalled at \(at): every task waits and nothing is scheduled"
        case let .horizonReached(horizon): "the simulation passed its horizon of \(horizon.seconds.formatted(.number)) s of virtual time"
        }
    }
}

/// Runs a blocking `work` on a new thread and resumes the caller with its result.
private func onOwnThread<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        let thread = Thread {
            continuation.resume(returning: work())
        }
        thread.name = "blerig-simulation"
        thread.stackSize = 16 << 20
        thread.start()
    }
}

/// A value that belongs to the simulation thread, carried through APIs that require `Sendable`.
struct SimulationConfined<Value>: @unchecked Sendable {
    // @unchecked Sendable: simulation components hand these only to timers, which run on the simulation thread,
    // the one thread that touches the wrapped value.
    let value: Value
    init(_ value: Value) { self.value = value }
}
