import BLECore
import Foundation
import Reports
import Testing

@testable import Orchestrator

/// What `--rerun-failed` takes from an earlier run's events.
@Suite("Rerun plans")
struct RerunPlanTests {
    static let start = RunEvent.runStarted(
        .init(
            runID: "r-1", rig: "t", rigFile: "rig.yaml", seed: 1, radio: "virtual", wallStart: Date(timeIntervalSince1970: 0),
            host: "h"))

    static func finished(_ board: String, _ suite: String, _ test: String, _ outcome: TestOutcome, attempt: Int = 1)
        -> RunEvent
    {
        .testFinished(
            .init(
                board: board, suite: suite, test: test, started: .origin, duration: .zero, outcome: outcome,
                attempt: attempt))
    }

    static func started(_ board: String) -> RunEvent { .boardStarted(.init(board: board, profile: "hrm", at: .origin)) }

    static let end = RunEvent.runFinished(.init(at: .origin, wallDuration: .zero))
    static let suites = ["discovery", "handshake", "commands"]

    @Test("a failed, erred or interrupted check reruns its suite; passes and a suite's own skips do not")
    func outcomes() throws {
        let plan = try #require(
            RerunPlan(
                directory: "d",
                events: [
                    Self.start, Self.started("a"), Self.started("b"),
                    Self.finished("a", "discovery", "advertises", .passed),
                    Self.finished("a", "handshake", "connect to ready", .failed(message: "slow", details: "")),
                    Self.finished("a", "commands", "led", .skipped(reason: "not applicable")),
                    Self.finished("b", "discovery", "advertises", .interrupted(reason: "SIGINT received")),
                    Self.finished("b", "handshake", "all checks", .skipped(reason: "not run: the run was stopped")),
                    Self.finished("b", "commands", "all checks", .skipped(reason: "not run: the run was stopped")),
                    Self.end,
                ]))
        #expect(plan.suites(for: "a", among: Self.suites) == ["handshake"])
        #expect(plan.suites(for: "b", among: Self.suites) == Self.suites)
        #expect(plan.suites(for: "c", among: Self.suites) == [], "a board the run did not start")
    }

    @Test("the last attempt decides: a check that passed on a retry is not rerun")
    func lastAttempt() throws {
        let plan = try #require(
            RerunPlan(
                directory: "d",
                events: [
                    Self.start, Self.started("a"),
                    Self.finished("a", "handshake", "connect to ready", .error(message: "radio", details: "")),
                    Self.finished("a", "handshake", "connect to ready", .passed, attempt: 2), Self.end,
                ]))
        #expect(plan.suites(for: "a", among: Self.suites) == [])
    }

    @Test("a run killed before its end reruns the suites that recorded nothing; a finished one does not")
    func killedRun() throws {
        let events = [Self.start, Self.started("a"), Self.finished("a", "discovery", "advertises", .passed)]
        let killed = try #require(RerunPlan(directory: "d", events: events))
        #expect(killed.suites(for: "a", among: Self.suites) == ["handshake", "commands"])
        let finished = try #require(RerunPlan(directory: "d", events: events + [Self.end]))
        #expect(finished.suites(for: "a", among: Self.suites) == [], "those suites were not selected then")
    }

    @Test("a log that does not start with runStarted is no plan")
    func notARun() {
        #expect(RerunPlan(directory: "d", events: [Self.started("a")]) == nil)
    }
}
