import BLECore
import DeviceProfiles
import Reports
import BenchCore
import Synchronization

/// A check that did not pass, with what and where in one line and the evidence below it. A product defect (class
/// ``FailureClass/test``) unless the check knows better: a board that went silent is ``FailureClass/board``.
public struct CheckFailure: Error, Sendable {
    public var message: String
    public var details: String
    public var failureClass: FailureClass

    public init(_ message: String, details: String = "", class failureClass: FailureClass = .test) {
        self.message = message
        self.details = details
        self.failureClass = failureClass
    }
}

/// A failed check that still measured something worth reporting (a handshake run where some attempts failed).
public struct MeasuredFailure: Error, Sendable {
    public var failure: CheckFailure
    public var measurements: [MeasuredValue]
}

/// Runs the checks of one board and records each as `testStarted` / `testFinished` events, its log lines, and
/// the board's state transitions.
///
/// Every check runs against a timeout on the bench clock; one that passes it is ended as interrupted, and the
/// board goes on with its next check. Every check also runs against the bench's health: the moment a part the
/// board depends on fails (a controller's transport closes, a process blerig started exits), the check ends as
/// an error of class infrastructure (board, for the board's own parts) with the cause, and a check during which
/// such a fault stood never passes, whatever it measured. When the run is stopped (``RunControl``), the check in
/// flight is ended as interrupted and every later one is recorded as skipped, so the reports are complete
/// whatever happens.
public final class CheckRecorder: Sendable {
    public let board: String
    let clock: any RigClock
    let emit: @Sendable (RunEvent) -> Void
    let control: RunControl
    let health: BenchHealth
    private let current = Mutex(BoardState.unknown)
    let attempts = Mutex(Attempts())

    init(
        board: String, clock: any RigClock, control: RunControl, health: BenchHealth = BenchHealth(),
        emit: @escaping @Sendable (RunEvent) -> Void
    ) {
        self.board = board
        self.clock = clock
        self.control = control
        self.health = health
        self.emit = emit
    }

    /// The board's state as last recorded.
    public var state: BoardState { current.withLock { $0 } }

    /// Runs `body` as the check `suite`/`name`, for at most `timeout` of bench time. Its measurements are recorded
    /// when it passes; a ``CheckFailure`` fails the check (a test failure), any other error makes it an error
    /// (see ``FailureClass/init(classifying:)``). Returns the outcome.
    @discardableResult
    public func check(
        _ suite: String, _ name: String, timeout: Duration,
        _ body: @escaping @Sendable () async throws -> [MeasuredValue]
    ) async -> TestOutcome {
        if Task.isCancelled, let reason = control.reason {
            skip(suite, name, reason: "not run: the run was stopped (\(reason))")
            return .skipped(reason: "the run was stopped")
        }
        let attempt = attempts.withLock { $0.attempt(of: suite) }
        let started = clock.now
        let wallStarted = ContinuousClock.now
        emit(.testStarted(.init(board: board, suite: suite, test: name, at: started)))
        let samples = SampleSink()
        var race: Race
        if let standing = health.fault(affecting: board) {
            race = .benchFailed(standing)
        } else {
            race = await Self.$samples.withValue(samples) {
                await Self.race(body, timeout: timeout, clock: clock, health: health, board: board)
            }
        }
        // A failing part's error can reach the check before the bench reports the part (a radio ends its scans,
        // then says it was removed): wait briefly for the report, so that the verdict names the part and why.
        if case .threw(let error) = race, health.fault(affecting: board) == nil,
            ((error as? CheckFailure)?.failureClass ?? FailureClass(classifying: error)) == .infrastructure,
            let fault = await Self.fault(affecting: board, within: Self.faultGrace, health: health, clock: clock)
        {
            race = .benchFailed(fault)
        }
        var (outcome, failureClass, measurements) = verdict(race, timeout: timeout)
        // Numbers measured while a part of the bench was failing are not the board's: no pass on them.
        if case .passed = outcome, let fault = health.fault(affecting: board) {
            (outcome, failureClass, measurements) = benchFailure(fault)
        }
        attempts.withLock { $0.end(suite: suite, name: name, outcome: outcome, failureClass: failureClass) }
        emit(
            .testFinished(
                .init(
                    board: board, suite: suite, test: name, started: started, duration: started.duration(to: clock.now),
                    outcome: outcome, measurements: measurements, failureClass: failureClass,
                    wallDuration: wallStarted.duration(to: .now), attempt: attempt,
                    samples: measurements.isEmpty ? [] : samples.all)))
        return outcome
    }

    /// The outcome, class and numbers of a check that ended as `race` says.
    private func verdict(
        _ race: Race, timeout: Duration
    ) -> (TestOutcome, FailureClass?, [MeasuredValue]) {
        switch race {
        case .finished(let values):
            return (.passed, nil, values)
        case .benchFailed(let fault):
            return benchFailure(fault)
        case .timedOut, .timerCancelled:
            let outcome = TestOutcome.interrupted(
                reason: "the check did not finish within its timeout of \(RunControl.durationText(timeout)) "
                    + "(check_timeout_s)")
            // The board stopped answering, unless the bench under it failed meanwhile.
            if let fault = health.fault(affecting: board) { return benchFailure(fault) }
            return (outcome, .board, [])
        case .threw(let error):
            if let fault = health.fault(affecting: board) { return benchFailure(fault) }
            if Task.isCancelled, let reason = control.reason {
                if case .infrastructure = reason { return (.interrupted(reason: reason.description), .infrastructure, []) }
                return (.interrupted(reason: reason.description), nil, [])
            }
            if let failure = error as? CheckFailure {
                return (.failed(message: failure.message, details: failure.details), failure.failureClass, [])
            }
            if let failure = error as? MeasuredFailure {
                return (
                    .failed(message: failure.failure.message, details: failure.failure.details),
                    failure.failure.failureClass, failure.measurements
                )
            }
            return (.error(message: "\(error)", details: String(reflecting: error)), FailureClass(classifying: error), [])
        }
    }

    /// An error naming the failed part; infrastructure for the bench's parts, board for the board's own.
    private func benchFailure(_ fault: BenchFault) -> (TestOutcome, FailureClass?, [MeasuredValue]) {
        let outcome = TestOutcome.error(
            message: "\(fault.part) failed at \(fault.at): \(fault.cause)",
            details: "A part of the bench failed while the check ran or before it; nothing it measured is reported. "
                + "Fix the bench and run again.")
        return (outcome, fault.board == nil ? .infrastructure : .board, [])
    }

    private enum Race: Sendable {
        case finished([MeasuredValue])
        case threw(any Error)
        case timedOut
        /// The timer was cancelled before it expired (the check finished, or the run was stopped).
        case timerCancelled
        /// A part the board depends on failed.
        case benchFailed(BenchFault)
    }

    /// How long a check that ended with an infrastructure error waits for the bench to report the failed part.
    static let faultGrace: Duration = .seconds(2)

    /// The bench's first fault affecting `board` within `limit`, or nil.
    private static func fault(
        affecting board: String, within limit: Duration, health: BenchHealth, clock: any RigClock
    ) async -> BenchFault? {
        await withTaskGroup(of: BenchFault?.self) { group in
            group.addTask { await health.nextFault(affecting: board) }
            group.addTask {
                try? await clock.sleep(for: limit)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }

    /// Runs `body` against a timer and the bench's health; the losers are cancelled and awaited.
    private static func race(
        _ body: @escaping @Sendable () async throws -> [MeasuredValue], timeout: Duration, clock: any RigClock,
        health: BenchHealth, board: String
    ) async -> Race {
        await withTaskGroup(of: Race?.self) { group in
            group.addTask {
                do { return .finished(try await body()) } catch { return .threw(error) }
            }
            group.addTask {
                do { try await clock.sleep(for: timeout) } catch { return .timerCancelled }
                return .timedOut
            }
            group.addTask { await health.nextFault(affecting: board).map(Race.benchFailed) }
            var outcome: Race?
            while outcome == nil, let next = await group.next() {
                guard let next else { continue }
                if case .timerCancelled = next { continue }
                outcome = next
                group.cancelAll()
            }
            return outcome ?? .threw(CancellationError())
        }
    }

    /// Records a check that was not run, with why.
    public func skip(_ suite: String, _ name: String, reason: String) {
        let now = clock.now
        emit(.testStarted(.init(board: board, suite: suite, test: name, at: now)))
        emit(
            .testFinished(
                .init(
                    board: board, suite: suite, test: name, started: now, duration: .zero,
                    outcome: .skipped(reason: reason))))
    }

    /// Records a check that does not apply to the board (its profile has no such feature), with why: reports
    /// leave it out, so it is no testcase. Call it only for checks the suite leaves out of
    /// ``Suite/checkNames(for:)`` for the board's profile.
    public func notApplicable(_ suite: String, _ name: String, reason: String) {
        emit(
            .testFinished(
                .init(
                    board: board, suite: suite, test: name, started: clock.now, duration: .zero,
                    outcome: .skipped(reason: reason), applies: false)))
    }

    /// Records every check `suite` runs on a board of `profile` as not run, with why.
    func skipAll(_ suite: PlannedSuite, profile: Profile, reason: String) {
        for name in suite.suite.checkNames(for: profile) { skip(suite.name, name, reason: reason) }
    }

    public func log(_ level: LogLevel, _ source: String, _ message: String) {
        emit(.log(.init(board: board, at: clock.now, level: level, source: source, message: message)))
    }

    /// Moves the board to `state`, recording why; does nothing if it is there already.
    public func move(to state: BoardState, reason: String) {
        let from = current.withLock { current -> BoardState? in
            guard current != state else { return nil }
            defer { current = state }
            return current
        }
        guard let from else { return }
        emit(.transition(.init(board: board, at: clock.now, from: from.rawValue, to: state.rawValue, reason: reason)))
    }
}
