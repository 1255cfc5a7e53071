import BLECore
import Foundation
import Synchronization

/// One simulation: a clock, a seed, and an executor that runs every task of the simulation on one thread.
/// Everything a simulation owns (radios, links, boards) lives on that thread.
///
/// A simulation runs in virtual time (``run(seed:horizon:_:)``): deterministic, every run with the same seed the
/// same. Or it runs on the wall clock (``runOnWallClock(seed:_:)``), for board models that face real radios: its
/// timers fire at real time, and other threads hand it work with ``post(_:)``.
public final class Simulation: Sendable {
    /// How a simulation's time passes.
    public enum Pacing: Sendable, Hashable {
        /// Virtual time, which jumps to the next timer whenever every task waits.
        case virtualTime
        /// The monotonic time since the run began: timers are waited for.
        case wallClock
    }

    public let seed: UInt64
    public let pacing: Pacing
    public let clock: VirtualClock
    let executor: SimulationExecutor
    /// What ``whenOver(_:)`` was given, run once the run is over.
    private let endings = Mutex<[@Sendable () -> Void]>([])

    private init(seed: UInt64, pacing: Pacing) {
        self.seed = seed
        self.pacing = pacing
        executor = SimulationExecutor(pacing: pacing)
        clock = VirtualClock(executor: executor)
    }

    /// Runs `action` once the run is over, after its last task and timer, on the thread that called
    /// ``run(seed:horizon:_:)`` or ``runOnWallClock(seed:_:)``: for components that hold each other while the
    /// simulation runs (the air its boards, each board the air) to let go, so that a finished run's farm is freed.
    func whenOver(_ action: @escaping @Sendable () -> Void) {
        endings.withLock { $0.append(action) }
    }

    /// Closes the executor (timers that never fired are dropped) and runs what ``whenOver(_:)`` was given.
    private func end() {
        executor.close()
        for action in endings.withLock({ endings in defer { endings = [] }; return endings }) { action() }
    }

    /// The simulation's time now: virtual time, or on the wall clock the monotonic time since the run began.
    public var now: RigInstant { executor.now }

    /// Runs `body` inside a new simulation and returns its result. Virtual time starts at zero and advances
    /// only while every task of the simulation waits; a run that would pass `horizon` of virtual time, or that
    /// stalls with nothing left to wake it, is cancelled and reported as ``SimulationError``.
    public static func run<T: Sendable>(
        seed: UInt64,
        horizon: Duration = .seconds(400 * 24 * 3600),
        _ body: @escaping @Sendable (Simulation) async throws -> T
    ) async throws -> T {
        let simulation = Simulation(seed: seed, pacing: .virtualTime)
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
        simulation.end()
        switch stop {
        case .finished: return try await task.value
        case .deadlock: throw SimulationError.stalled(at: simulation.now)
        case .horizon: throw SimulationError.horizonReached(horizon)
        }
    }

    /// Runs `body` inside a new simulation on the wall clock and returns its result. Time starts at zero when the run
    /// begins and is the monotonic time elapsed since; a timer (a sleep on ``clock``, a board's) fires once that
    /// time reaches its deadline, unless other work comes first. The simulation thread sleeps while there is nothing
    /// to do, and wakes for the next deadline or for work from outside (``post(_:)``). Nothing here is
    /// deterministic, and there is no stall detection: a task may always be waiting for outside I/O. The run ends
    /// when `body` returns or throws; cancelling the calling task cancels `body`.
    public static func runOnWallClock<T: Sendable>(
        seed: UInt64, _ body: @escaping @Sendable (Simulation) async throws -> T
    ) async throws -> T {
        let simulation = Simulation(seed: seed, pacing: .wallClock)
        let finished = Atomic(false)
        let task = Task(executorPreference: simulation.executor) { @Sendable () async throws -> T in
            defer { finished.store(true, ordering: .releasing) }
            return try await body(simulation)
        }
        let executor = simulation.executor
        await withTaskCancellationHandler {
            await onOwnThread { executor.runOnWallClock { finished.load(ordering: .acquiring) } }
        } onCancel: {
            task.cancel()
        }
        simulation.end()
        return try await task.value
    }

    /// Runs `action` on the simulation thread as soon as it is free, after every action posted before it. Callable
    /// from any thread, and the way into the simulation for one that is not its own (an I/O thread delivering
    /// what a controller reported); it wakes the simulation thread if it sleeps. Returns false, and drops the
    /// action, once the run is over.
    ///
    /// In virtual time, an action posted from another thread runs at whatever instant the simulation has reached:
    /// such a run is no longer a function of its seed.
    @discardableResult
    public func post(_ action: @escaping @Sendable () -> Void) -> Bool {
        executor.post(action)
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

    /// Jobs (posted actions included) run and timers fired so far (for benchmarks).
    public var work: (jobs: Int, timers: Int) { (executor.jobsRun, executor.timersFired) }

    /// Traps when called off the simulation thread: simulation components are confined to it.
    func assertIsolated(_ file: StaticString = #fileID, _ line: UInt = #line) {
        precondition(
            executor.isOnSimulationThread, "simulation state touched off the simulation thread", file: file, line: line)
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
        case let .horizonReached(horizon):
            "the simulation passed its horizon of \(horizon.seconds.formatted(.number)) s of virtual time"
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
