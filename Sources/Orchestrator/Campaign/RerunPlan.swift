import Foundation
import Reports

/// What `--rerun-failed RUN` runs again: per board of an earlier run, the suites that did not pass there.
///
/// Read from the earlier run's `run.jsonl`. A suite is run again on a board when the last attempt of any of its
/// checks failed, erred or was interrupted, or when the suite never ran on that board (its board failed
/// preflight, or the run was stopped first: the suite's `all checks` were skipped). A run that ended without its
/// `runFinished` event (the process was killed) also runs again every suite of the rig that has no check recorded
/// for a board it started. Boards with nothing to run again are left out; skips a suite decided itself (a check
/// that does not apply to a profile) are not failures.
public struct RerunPlan: Sendable, Hashable {
    /// The earlier run's directory.
    public let directory: String
    public let runID: String
    /// The earlier run's rig, by name.
    public let rig: String
    /// The boards the earlier run started, in the order it started them.
    public let boards: [String]
    /// Per board, each suite with a check recorded: true when every check of it passed or was skipped by the suite.
    let passed: [String: [String: Bool]]
    /// False when the run.jsonl has no `runFinished`: the run was killed, and suites without checks never ran.
    let finished: Bool

    /// The test name a run records when a whole suite was not run on a board.
    static let wholeSuite = "all checks"

    /// The suites among `suites` (the rig's, in order) to run again on `board`.
    public func suites(for board: String, among suites: [String]) -> [String] {
        guard boards.contains(board) else { return [] }
        let recorded = passed[board] ?? [:]
        return suites.filter { suite in
            guard let passed = recorded[suite] else { return !finished }
            return !passed
        }
    }

    /// Reads the run `reference` names: a run directory, or a run id under `outputRoot`.
    public static func load(_ reference: String, outputRoot: String) throws(CampaignError) -> RerunPlan {
        let candidates = [reference, (outputRoot as NSString).appendingPathComponent(reference)]
        guard
            let directory = candidates.first(where: {
                FileManager.default.fileExists(atPath: ($0 as NSString).appendingPathComponent("run.jsonl"))
            })
        else {
            throw .argument(
                flag: "--rerun-failed",
                message: "'\(reference)' is neither a run directory nor a run id under \(outputRoot)/ "
                    + "(no run.jsonl in \(candidates.joined(separator: " or ")))")
        }
        let path = (directory as NSString).appendingPathComponent("run.jsonl")
        let log: RunLog
        do {
            log = try RunLog(jsonLines: Data(contentsOf: URL(fileURLWithPath: path)))
        } catch {
            throw .argument(flag: "--rerun-failed", message: "cannot read \(path): \(error)")
        }
        guard let plan = RerunPlan(directory: directory, events: log.events) else {
            throw .argument(flag: "--rerun-failed", message: "\(path) does not start with a runStarted event")
        }
        return plan
    }

    /// The plan for a run's events; nil when they do not start with `runStarted`.
    init?(directory: String, events: [RunEvent]) {
        guard case .runStarted(let start)? = events.first else { return nil }
        self.directory = directory
        runID = start.runID
        rig = start.rig
        var boards: [String] = []
        var last: [String: [String: [String: TestOutcome]]] = [:]
        var finished = false
        for event in events {
            switch event {
            case .boardStarted(let board) where !boards.contains(board.board): boards.append(board.board)
            case .testFinished(let test): last[test.board, default: [:]][test.suite, default: [:]][test.test] = test.outcome
            case .runFinished: finished = true
            default: break
            }
        }
        self.boards = boards
        self.finished = finished
        passed = last.mapValues { suites in
            suites.mapValues { tests in
                tests.allSatisfy { name, outcome in
                    switch outcome {
                    case .passed: true
                    // A check skipped because it was never run (the run stopped, the board was quarantined) did
                    // not pass; one skipped for what the rig gives the board (no console) would be skipped again.
                    case .skipped(let reason):
                        name != Self.wholeSuite && !reason.hasPrefix("not run") && !reason.contains("quarantined")
                    case .failed, .error, .interrupted: false
                    }
                }
            }
        }
    }
}
