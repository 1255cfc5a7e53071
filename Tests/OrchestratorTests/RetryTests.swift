import BLECore
import Foundation
import Reports
import Testing

@testable import Orchestrator

@Suite("Retries: the rig's limits and how attempts fold")
struct RetryTests {
    @Test("retries and rerun_failed are read with their limits; a wrong key or count is an error at its place")
    func policyFromTheRig() throws {
        let base = "rig: t\nradio: virtual\nboards: [{id: b1, profile: hrm}]\nsuites: [discovery]\n"
        let rig = try RigTesting.load(base + "retries: {infrastructure: 2, board: 1}\nrerun_failed: 3\n")
        #expect(rig.retries == RetryPolicy(infrastructure: 2, board: 1, rerunFailed: 3))
        #expect(try RigTesting.load(base).retries == RetryPolicy())
        let wrongKey = RigTesting.issues(base + "retries: {infra: 2}\n")
        #expect(wrongKey.map(\.description) == [
            "rig.yaml:5:11: unknown key 'infra' in retries (did you mean 'infrastructure'?)"
        ])
        let tooMany = RigTesting.issues(base + "rerun_failed: 11\n")
        #expect(tooMany.count == 1)
        #expect(tooMany.first?.description.hasPrefix("rig.yaml:5:15:") == true, "\(tooMany)")
    }

    @Test("a retried check is one result whose earlier attempts are kept: flaky when it passed at last")
    func attemptsFold() {
        func finished(_ attempt: Int, _ outcome: TestOutcome, at ms: Int64) -> RunEvent {
            .testFinished(
                .init(
                    board: "b", suite: "s", test: "c", started: RigInstant(sinceOrigin: .milliseconds(ms)),
                    duration: .milliseconds(5), outcome: outcome,
                    failureClass: outcome == .passed ? nil : .board, attempt: attempt))
        }
        func started(at ms: Int64) -> RunEvent {
            .testStarted(.init(board: "b", suite: "s", test: "c", at: RigInstant(sinceOrigin: .milliseconds(ms))))
        }
        let result = RunResult([
            started(at: 0), finished(1, .error(message: "no answer", details: ""), at: 0),
            started(at: 10), finished(2, .error(message: "no answer", details: ""), at: 10),
            started(at: 20), finished(3, .passed, at: 20),
        ])
        let tests = result.boards.flatMap(\.tests)
        #expect(tests.count == 1)
        #expect(tests.first?.attempt == 3)
        #expect(tests.first?.isFlaky == true)
        #expect(tests.first?.earlierAttempts.map(\.failureClass) == [.board, .board])
        #expect(result.counts == TestCounts(passed: 1))
        // Two checks of the same name that are not retries stay two results.
        let twice = RunResult([started(at: 0), finished(1, .passed, at: 0), started(at: 10), finished(1, .passed, at: 10)])
        #expect(twice.boards.flatMap(\.tests).count == 2)
    }
}
