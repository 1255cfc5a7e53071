import BLECore
import Reports

/// A check that did not pass, with what and where in one line and the evidence below it.
public struct CheckFailure: Error, Sendable {
    public var message: String
    public var details: String

    public init(_ message: String, details: String = "") {
        self.message = message
        self.details = details
    }
}

/// Runs the checks of one board and records each as `testStarted` / `testFinished` events in the run log.
public final class CheckRecorder: Sendable {
    public let board: String
    let clock: any RigClock
    let emit: @Sendable (RunEvent) -> Void

    init(board: String, clock: any RigClock, emit: @escaping @Sendable (RunEvent) -> Void) {
        self.board = board
        self.clock = clock
        self.emit = emit
    }

    /// Runs `body` as the check `suite`/`name`. Its measurements are recorded when it passes; a
    /// ``CheckFailure`` fails the check, any other error makes it an error. Returns the outcome.
    @discardableResult
    public func check(
        _ suite: String, _ name: String, _ body: () async throws -> [MeasuredValue]
    ) async -> TestOutcome {
        let started = clock.now
        emit(.testStarted(.init(board: board, suite: suite, test: name, at: started)))
        let outcome: TestOutcome
        var measurements: [MeasuredValue] = []
        do {
            measurements = try await body()
            outcome = .passed
        } catch let failure as CheckFailure {
            outcome = .failed(message: failure.message, details: failure.details)
        } catch let failure as MeasuredFailure {
            measurements = failure.measurements
            outcome = .failed(message: failure.failure.message, details: failure.failure.details)
        } catch {
            outcome = .error(message: "\(error)", details: String(reflecting: error))
        }
        emit(
            .testFinished(
                .init(
                    board: board, suite: suite, test: name, started: started, duration: started.duration(to: clock.now),
                    outcome: outcome, measurements: measurements)))
        return outcome
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

    public func log(_ level: LogLevel, _ source: String, _ message: String) {
        emit(.log(.init(board: board, at: clock.now, level: level, source: source, message: message)))
    }

    public func transition(from: String, to: String, reason: String) {
        emit(.transition(.init(board: board, at: clock.now, from: from, to: to, reason: reason)))
    }
}

/// A failed check that still measured something worth reporting (a handshake run where some attempts failed).
public struct MeasuredFailure: Error, Sendable {
    public var failure: CheckFailure
    public var measurements: [MeasuredValue]
}
