import BLECore
import DeviceProfiles
import Reports
import Synchronization

/// A check that did not pass, with what and where in one line and the evidence below it.
public struct CheckFailure: Error, Sendable {
    public var message: String
    public var details: String

    public init(_ message: String, details: String = "") {
        self.message = message
        self.details = details
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
/// board goes on with its next check. When the run is stopped (``RunControl``), the check in flight is ended as
/// interrupted and every later one is recorded as skipped, so the reports are complete whatever happens.
public final class CheckRecorder: Sendable {
    public let board: String
    let clock: any RigClock
    let emit: @Sendable (RunEvent) -> Void
    let control: RunControl
    private let current = Mutex(BoardState.unknown)

    init(board: String, clock: any RigClock, control: RunControl, emit: @escaping @Sendable (RunEvent) -> Void) {
        self.board = board
        self.clock = clock
        self.control = control
        self.emit = emit
    }

    /// The board's state as last recorded.
    public var state: BoardState { current.withLock { $0 } }

    /// Runs `body` as the check `suite`/`name`, for at most `timeout` of bench time. Its measurements are recorded
    /// when it passes; a ``CheckFailure`` fails the check, any other error makes it an error. Returns the outcome.
    @discardableResult
    public func check(
        _ suite: String, _ name: String, timeout: Duration,
        _ body: @escaping @Sendable () async throws -> [MeasuredValue]
    ) async -> TestOutcome {
        if Task.isCancelled, let reason = control.reason {
            skip(suite, name, reason: "not run: the run was stopped (\(reason))")
            return .skipped(reason: "the run was stopped")
        }
        let started = clock.now
        emit(.testStarted(.init(board: board, suite: suite, test: name, at: started)))
        let samples = SampleSink()
        let race = await Self.$samples.withValue(samples) {
            await Self.race(body, timeout: timeout, clock: clock)
        }
        let outcome: TestOutcome
        var measurements: [MeasuredValue] = []
        switch race {
        case .finished(let values):
            measurements = values
            outcome = .passed
        case .timedOut, .timerCancelled:
            outcome = .interrupted(
                reason: "the check did not finish within its timeout of \(RunControl.durationText(timeout)) "
                    + "(check_timeout_s)")
        case .threw(let error):
            if Task.isCancelled, let reason = control.reason {
                outcome = .interrupted(reason: reason.description)
            } else if let failure = error as? CheckFailure {
                outcome = .failed(message: failure.message, details: failure.details)
            } else if let failure = error as? MeasuredFailure {
                measurements = failure.measurements
                outcome = .failed(message: failure.failure.message, details: failure.failure.details)
            } else {
                outcome = .error(message: "\(error)", details: String(reflecting: error))
            }
        }
        emit(
            .testFinished(
                .init(
                    board: board, suite: suite, test: name, started: started, duration: started.duration(to: clock.now),
                    outcome: outcome, measurements: measurements,
                    samples: outcome == .passed || !measurements.isEmpty ? samples.all : [])))
        return outcome
    }

    private enum Race: Sendable {
        case finished([MeasuredValue])
        case threw(any Error)
        case timedOut
        /// The timer was cancelled before it expired (the check finished, or the run was stopped).
        case timerCancelled
    }

    /// Runs `body` against a timer; the loser is cancelled and awaited.
    private static func race(
        _ body: @escaping @Sendable () async throws -> [MeasuredValue], timeout: Duration, clock: any RigClock
    ) async -> Race {
        await withTaskGroup(of: Race.self) { group in
            group.addTask {
                do { return .finished(try await body()) } catch { return .threw(error) }
            }
            group.addTask {
                do { try await clock.sleep(for: timeout) } catch { return .timerCancelled }
                return .timedOut
            }
            var outcome: Race?
            while outcome == nil, let next = await group.next() {
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
