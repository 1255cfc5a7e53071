import BLECore
import Foundation
import Synchronization

/// Runs every task of one simulation on one thread and moves virtual time forward only when all of them are
/// suspended: jobs run first-in first-out until none is left, then the earliest timer fires. With one thread and
/// a fixed order for jobs and timers, a run is a pure function of its inputs and its seed.
///
/// Code inside the simulation must stay on this executor: structured concurrency (task groups, `async let`) and
/// default actors inherit it; unstructured `Task {}`, `Task.sleep` and other clocks escape it.
final class SimulationExecutor: SerialExecutor, TaskExecutor, @unchecked Sendable {
    // @unchecked Sendable: `jobs` and `timers` are guarded by their mutexes, `nowNanoseconds` is atomic, and
    // `runningThread` and the counters are written only by the thread inside `run`.
    private let jobs = Mutex(JobQueue())
    private let wakeUp = NSCondition()
    private let timers = Mutex(TimerQueue())
    private let nowNanoseconds = Atomic<Int64>(0)
    private var runningThread: pthread_t?

    /// Jobs and timers run so far: the cost of a run, for benchmarks.
    private(set) var jobsRun = 0
    private(set) var timersFired = 0

    var now: RigInstant { RigInstant(sinceOrigin: .nanoseconds(nowNanoseconds.load(ordering: .relaxed))) }

    func enqueue(_ job: consuming ExecutorJob) {
        let unowned = UnownedJob(job)
        jobs.withLock { $0.push(unowned) }
        wakeUp.lock()
        wakeUp.signal()
        wakeUp.unlock()
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor { UnownedSerialExecutor(ordinary: self) }

    /// Schedules `action` to run on the simulation thread at `deadline` (now, if it has passed).
    @discardableResult
    func schedule(at deadline: RigInstant, _ action: @escaping @Sendable () -> Void) -> TimerQueue.ID {
        let at = max(deadline, now)
        return timers.withLock { $0.schedule(at: at, action) }
    }

    /// Cancels a timer that has not fired; does nothing otherwise.
    func cancel(_ id: TimerQueue.ID) {
        timers.withLock { $0.cancel(id) }
    }

    /// True on the thread that is running this simulation.
    var isOnSimulationThread: Bool {
        guard let runningThread else { return false }
        return pthread_equal(runningThread, pthread_self()) != 0
    }

    func checkIsolated() {
        precondition(isOnSimulationThread, "simulation state touched off the simulation thread")
    }

    enum Stop: Equatable {
        /// `isFinished` turned true.
        case finished
        /// Every task is suspended and nothing is scheduled: nothing can ever happen again.
        case deadlock
        /// The next timer lies beyond the horizon.
        case horizon
    }

    /// Runs jobs and timers on the calling thread until `isFinished()` holds, nothing can happen any more, or
    /// virtual time would pass `horizon`.
    func run(horizon: RigInstant, isFinished: () -> Bool) -> Stop {
        runningThread = pthread_self()
        defer { runningThread = nil }
        while true {
            while let job = jobs.withLock({ $0.pop() }) {
                job.runSynchronously(isolatedTo: asUnownedSerialExecutor(), taskExecutor: asUnownedTaskExecutor())
                jobsRun += 1
            }
            if isFinished() { return .finished }
            guard let deadline = timers.withLock({ $0.earliestDeadline() }) else {
                // A job may still arrive from outside (the first job of the root task, or a cancellation from
                // another thread); give it a moment before calling the simulation stuck.
                if waitForJob(upTo: 0.2) { continue }
                return .deadlock
            }
            if deadline > horizon { return .horizon }
            let timer = timers.withLock { $0.popEarliest() }!
            nowNanoseconds.store(Self.nanoseconds(timer.deadline.sinceOrigin), ordering: .relaxed)
            timersFired += 1
            timer.action()
        }
    }

    private func waitForJob(upTo seconds: Double) -> Bool {
        let limit = Date(timeIntervalSinceNow: seconds)
        wakeUp.lock()
        defer { wakeUp.unlock() }
        while jobs.withLock({ $0.isEmpty }) {
            if !wakeUp.wait(until: limit) { return !jobs.withLock { $0.isEmpty } }
        }
        return true
    }

    private static func nanoseconds(_ d: Duration) -> Int64 {
        let (s, atto) = d.components
        return s * 1_000_000_000 + atto / 1_000_000_000
    }
}

/// First-in first-out jobs without the O(n) cost of `Array.removeFirst`.
struct JobQueue: ~Copyable {
    private var items: [UnownedJob] = []
    private var head = 0

    var isEmpty: Bool { head == items.count }

    mutating func push(_ job: UnownedJob) { items.append(job) }

    mutating func pop() -> UnownedJob? {
        guard head < items.count else { return nil }
        let job = items[head]
        head += 1
        if head == items.count {
            items.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 1024, head * 2 >= items.count {
            items.removeFirst(head)
            head = 0
        }
        return job
    }
}
