import BLECore
import Foundation
import Synchronization

/// Runs every task of one simulation on one thread. In virtual time it moves time forward only when all of them are
/// suspended: jobs run first-in first-out until none is left, then the earliest timer fires. With one thread and
/// a fixed order for jobs and timers, a run is a pure function of its inputs and its seed.
///
/// On the wall clock (``runOnWallClock(isFinished:)``) the order is the same, but time is the monotonic time since
/// the run began: a timer fires once that time reaches its deadline, and in between the thread sleeps until the
/// next deadline or until work arrives from outside (a job, an action ``post(_:)``ed by an I/O thread).
///
/// Code inside the simulation must stay on this executor: structured concurrency (task groups, `async let`) and
/// default actors inherit it; unstructured `Task {}`, `Task.sleep` and other clocks escape it.
final class SimulationExecutor: SerialExecutor, TaskExecutor, @unchecked Sendable {
    // @unchecked Sendable: `jobs`, `posted` and `timers` are guarded by their mutexes, `nowNanoseconds` is atomic,
    // `wallOrigin` never changes, and `runningThread` and the counters are written only by the thread inside `run`
    // or `runOnWallClock`.
    private let jobs = Mutex(JobQueue())
    /// Actions posted from any thread, run in order when the simulation thread is free; nil once the run is over.
    private let posted = Mutex<[@Sendable () -> Void]?>([])
    private let wakeUp = WakeUp()
    private let timers = Mutex(TimerQueue())
    private let nowNanoseconds = Atomic<Int64>(0)
    /// On the wall clock, the monotonic instant time counts from; nil in virtual time.
    private let wallOrigin: ContinuousClock.Instant?
    private var runningThread: pthread_t?

    /// Jobs (posted actions included) and timers run so far: the cost of a run, for benchmarks.
    private(set) var jobsRun = 0
    private(set) var timersFired = 0

    /// An executor in virtual time, or on the wall clock counting from now.
    init(pacing: Simulation.Pacing) {
        wallOrigin = pacing == .wallClock ? ContinuousClock.now : nil
    }

    var now: RigInstant {
        if let wallOrigin { return RigInstant(sinceOrigin: wallOrigin.duration(to: .now)) }
        return RigInstant(sinceOrigin: .nanoseconds(nowNanoseconds.load(ordering: .relaxed)))
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let unowned = UnownedJob(job)
        jobs.withLock { $0.push(unowned) }
        wakeUp.signal()
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor { UnownedSerialExecutor(ordinary: self) }

    /// Schedules `action` to run on the simulation thread at `deadline` (now, if it has passed).
    @discardableResult
    func schedule(at deadline: RigInstant, _ action: @escaping @Sendable () -> Void) -> TimerQueue.ID {
        let at = max(deadline, now)
        let id = timers.withLock { $0.schedule(at: at, action) }
        // On the wall clock the thread may be asleep until a later deadline (a timer scheduled from another thread).
        if wallOrigin != nil { wakeUp.signal() }
        return id
    }

    /// Cancels a timer that has not fired; does nothing otherwise.
    func cancel(_ id: TimerQueue.ID) {
        timers.withLock { $0.cancel(id) }
    }

    /// Runs `action` on the simulation thread as soon as it is free, after the actions posted before it; callable
    /// from any thread. Returns false, and drops the action, once the run is over.
    @discardableResult
    func post(_ action: @escaping @Sendable () -> Void) -> Bool {
        let accepted = posted.withLock { queue -> Bool in
            guard queue != nil else { return false }
            queue!.append(action)
            return true
        }
        if accepted { wakeUp.signal() }
        return accepted
    }

    /// Ends the run for good: posted actions still queued are dropped and later ones refused, and so are the timers
    /// that never fired. A board's timers capture the board, which holds the simulation that holds them: kept, they
    /// would keep the whole farm alive after its run (135 KB per run of `bench ota-faults`, 1.4 GB over 10,000).
    func close() {
        posted.withLock { $0 = nil }
        timers.withLock { $0.close() }
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
            runReadyWork()
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

    /// Wall-clock pacing: runs jobs, posted actions and timers on the calling thread until `isFinished()` holds, each
    /// timer once the monotonic time since the run began reaches its deadline, and sleeps in between. It never
    /// gives up on its own: with nothing scheduled it waits for work from outside.
    func runOnWallClock(isFinished: () -> Bool) {
        precondition(wallOrigin != nil, "runOnWallClock on an executor in virtual time")
        runningThread = pthread_self()
        defer { runningThread = nil }
        while true {
            runReadyWork()
            if isFinished() { return }
            if let timer = popDueTimer() {
                timersFired += 1
                timer()
                continue
            }
            sleepUntilWorkOrNextDeadline()
        }
    }

    /// Runs queued jobs and posted actions until none is left.
    private func runReadyWork() {
        while true {
            while let job = jobs.withLock({ $0.pop() }) {
                job.runSynchronously(isolatedTo: asUnownedSerialExecutor(), taskExecutor: asUnownedTaskExecutor())
                jobsRun += 1
            }
            let actions = posted.withLock { queue -> [@Sendable () -> Void] in
                guard let actions = queue, !actions.isEmpty else { return [] }
                queue = []
                return actions
            }
            if actions.isEmpty { return }
            for action in actions {
                action()
                jobsRun += 1
            }
        }
    }

    private var hasReadyWork: Bool {
        !jobs.withLock { $0.isEmpty } || posted.withLock { !($0?.isEmpty ?? true) }
    }

    /// The earliest timer, removed from the queue, when its deadline has come.
    private func popDueTimer() -> (@Sendable () -> Void)? {
        timers.withLock { queue in
            guard let deadline = queue.earliestDeadline(), deadline <= now else { return nil }
            return queue.popEarliest()?.action
        }
    }

    private func sleepUntilWorkOrNextDeadline() {
        wakeUp.withLock {
            while !hasReadyWork {
                guard let deadline = timers.withLock({ $0.earliestDeadline() }) else {
                    wakeUp.wait(for: nil)
                    continue
                }
                let remaining = now.duration(to: deadline)
                if remaining <= .zero { return }
                wakeUp.wait(for: remaining)
            }
        }
    }

    private func waitForJob(upTo seconds: Double) -> Bool {
        let limit = ContinuousClock.now.advanced(by: .milliseconds(seconds * 1000))
        return wakeUp.withLock {
            while !hasReadyWork {
                if !wakeUp.wait(for: ContinuousClock.now.duration(to: limit)) { return hasReadyWork }
            }
            return true
        }
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
