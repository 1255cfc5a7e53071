import BLECore
import Foundation
import Reports

/// A run flattened into the rows of the history schema, the same for every backend. Built from a finished run's
/// ``RunResult``, whether it comes from the campaign that just ended or from a run directory's `run.jsonl`.
public struct RunRows: Sendable {
    public var run: RunRecord
    public var boards: [BoardRecord]
    public var outcomes: [OutcomeRecord]
    public var values: [ValueRecord]
    /// What each metric measures, once per metric and unit.
    public var definitions: [(metric: String, unit: String, definition: String)]
    public var samples: [SamplesRecord]

    /// Flattens `result`. A log without `runStarted` cannot be stored: nothing says which run it is.
    public init(_ result: RunResult) throws(HistoryError) {
        guard let started = result.run else {
            throw HistoryError(
                database: "-", message: "the run has no runStarted event, so no run id: it cannot be stored")
        }
        let counts = result.counts
        run = RunRecord(
            runID: started.runID, rig: started.rig, rigFile: started.rigFile, rigSHA256: started.rigSHA256,
            rigRevision: started.rigRevision, host: started.host, radio: started.radio, seed: started.seed,
            started: started.wallStart,
            ended: result.finished.map { started.wallStart.addingTimeInterval($0.wallDuration.seconds) },
            benchSeconds: result.finished?.at.sinceOrigin.seconds, interruption: result.finished?.interruption,
            passed: counts.passed, failed: counts.failed, errors: counts.errors, skipped: counts.skipped,
            interrupted: counts.interrupted, boards: result.boards.count)
        boards = []
        outcomes = []
        values = []
        samples = []
        var defined: Set<String> = []
        var definitions: [(metric: String, unit: String, definition: String)] = []
        func define(_ value: MeasuredValue) {
            guard defined.insert("\(value.metric)\u{0}\(value.unit.rawValue)").inserted else { return }
            definitions.append((value.metric, value.unit.rawValue, value.definition))
        }
        for board in result.boards {
            boards.append(
                BoardRecord(
                    board: board.id, profile: board.profile,
                    firmware: board.identity.first { $0.key == "firmware" }?.value, finalState: board.finalState,
                    identity: board.identity))
            for value in board.measurements {
                define(value)
                values.append(Self.value(value, board: board.id, suite: "", test: ""))
            }
            for (ordinal, test) in board.tests.enumerated() {
                for (index, attempt) in test.earlierAttempts.enumerated() {
                    outcomes.append(
                        Self.outcome(
                            board: board.id, ordinal: ordinal, suite: test.suite, test: test.name, attempt: index + 1,
                            isFinal: false, outcome: attempt.outcome, failureClass: attempt.failureClass,
                            duration: attempt.duration, wall: attempt.wallDuration))
                }
                outcomes.append(
                    Self.outcome(
                        board: board.id, ordinal: ordinal, suite: test.suite, test: test.name, attempt: test.attempt,
                        isFinal: true, outcome: test.outcome, failureClass: test.failureClass,
                        duration: test.duration, wall: test.wallDuration))
                for value in test.measurements {
                    define(value)
                    values.append(Self.value(value, board: board.id, suite: test.suite, test: test.name))
                }
                for sample in test.samples {
                    samples.append(
                        SamplesRecord(
                            board: board.id, suite: test.suite, test: test.name, metric: sample.metric,
                            unit: sample.unit.rawValue, values: sample.values))
                }
            }
        }
        self.definitions = definitions
    }

    private static func value(_ value: MeasuredValue, board: String, suite: String, test: String) -> ValueRecord {
        ValueRecord(
            board: board, suite: suite, test: test, metric: value.metric, statistic: value.statistic.rawValue,
            value: value.value, unit: value.unit.rawValue)
    }

    private static func outcome(
        board: String, ordinal: Int, suite: String, test: String, attempt: Int, isFinal: Bool, outcome: TestOutcome,
        failureClass: FailureClass?, duration: Duration, wall: Duration?
    ) -> OutcomeRecord {
        let (status, message): (String, String) =
            switch outcome {
            case .passed: ("passed", "")
            case .failed(let message, _): ("failed", message)
            case .skipped(let reason): ("skipped", reason)
            case .error(let message, _): ("error", message)
            case .interrupted(let reason): ("interrupted", reason)
            }
        return OutcomeRecord(
            board: board, ordinal: ordinal, suite: suite, test: test, attempt: attempt, isFinal: isFinal,
            status: status, failureClass: failureClass, message: message, benchSeconds: duration.seconds,
            wallSeconds: wall?.seconds)
    }
}
