import BLECore
import Benches
import Foundation
import Reports
import Testing

@testable import Orchestrator

/// Runs that are stopped early — by the horizon, by an interruption, by a check's own timeout, by a failing disk —
/// still end with every report written, the checks in flight marked, and the boards left as the rig says.
@Suite("Runs that survive")
struct RunSurvivalTests {
    static let longRig = CampaignTests.rig(
        suites: """
              - discovery
              - notifications: {duration_s: 3600}
              - commands: {repetitions: 1}
            """)

    /// The outcome of every check of the run, `board suite/check → outcome`.
    static func outcomes(_ result: CampaignResult) -> [String: TestOutcome] {
        var outcomes: [String: TestOutcome] = [:]
        for board in result.result.boards {
            for test in board.tests { outcomes["\(board.id) \(test.suite)/\(test.name)"] = test.outcome }
        }
        return outcomes
    }

    static func expectStoppedCleanly(_ result: CampaignResult, reason: String) throws {
        #expect(result.status == .interrupted)
        let outcomes = Self.outcomes(result)
        for board in ["esp-01", "nano-01", "hrm-01"] {
            let listening = outcomes.first { $0.key.hasPrefix("\(board) notifications/") }?.value
            #expect(listening == .interrupted(reason: reason), "\(board): \(String(describing: listening))")
            #expect(
                outcomes["\(board) commands/light on/off"] == .skipped(reason: "not run: the run was stopped (\(reason))")
            )
            #expect(outcomes["\(board) discovery/GATT table complete"] == .passed)
        }
        // The boards were left off, as after_run says by default.
        for board in result.result.boards { #expect(board.transitions.last?.to == "off") }
        try XMLSchema.expectValid("\(result.directory)/junit.xml")
        let xml = try String(contentsOfFile: "\(result.directory)/junit.xml", encoding: .utf8)
        #expect(xml.contains("type=\"interrupted\""))
        // The streamed log ends with the run's end, which says why it stopped.
        let log = try RunLog(jsonLines: try Data(contentsOf: URL(fileURLWithPath: "\(result.directory)/run.jsonl")))
        guard case let .runFinished(end)? = log.events.last else {
            Issue.record("run.jsonl does not end with runFinished")
            return
        }
        #expect(end.interruption == reason)
    }

    @Test("the horizon stops a run: checks in flight are interrupted, the rest skipped, every report written")
    func horizonStopsTheRun() async throws {
        let result = try await CampaignTests.run(
            Self.longRig, options: RunOptions(outputRoot: CampaignTests.outputRoot(), horizon: .seconds(600)))
        try Self.expectStoppedCleanly(result, reason: "the horizon of 600 s of bench time reached")
        #expect(result.benchTime == .seconds(600))
    }

    @Test("an interruption mid-run (what SIGINT does) ends the run the same way, at a deterministic instant")
    func interruptionMidRun() async throws {
        let control = RunControl()
        let campaign = try CampaignTests.campaign(Self.longRig)
        // Interrupt as soon as the Nano's discovery is done: the other boards are mid-suite, the Nano about to
        // listen. The progress callback runs inside the simulation, so the instant is the same every run.
        let result = try await campaign.run(RunOptions(outputRoot: CampaignTests.outputRoot()), control: control) {
            line in
            if line.hasPrefix("[nano-01] discovery / GATT table complete") { control.interrupt(.signal(2)) }
        }
        #expect(result.status == .interrupted)
        #expect(result.interruption == .signal(2))
        let outcomes = Self.outcomes(result)
        #expect(
            outcomes["nano-01 commands/light on/off"]
                == .skipped(reason: "not run: the run was stopped (SIGINT received)"))
        for board in result.result.boards { #expect(board.transitions.last?.to == "off") }
        try XMLSchema.expectValid("\(result.directory)/junit.xml")
        #expect(result.benchTime < .seconds(60))
    }

    @Test("a check that outlives check_timeout_s is ended as interrupted and the board goes on with its next suite")
    func checkTimeout() async throws {
        let rig = CampaignTests.rig(
            suites: """
                  - notifications: {duration_s: 60, check_timeout_s: 10}
                  - commands: {repetitions: 1}
                """)
        let result = try await CampaignTests.run(rig)
        #expect(result.status == .checksFailed)
        let outcomes = Self.outcomes(result)
        let reason = "the check did not finish within its timeout of 10 s (check_timeout_s)"
        #expect(outcomes["nano-01 notifications/Temperature rate and gaps"] == .interrupted(reason: reason))
        #expect(outcomes["nano-01 commands/light on/off"] == .passed)
        #expect(outcomes["esp-01 commands/bad argument refused"] == .passed)
        #expect(result.interruption == nil)
    }

    @Test("a run log that cannot be written (ENOSPC mid-run) stops the run, names the file, and keeps junit.xml")
    func fullDiskMidRun() async throws {
        let campaign = try CampaignTests.campaign(Self.longRig)
        let result = try await campaign.run(RunOptions(outputRoot: CampaignTests.outputRoot())) { line in
            // As the run starts, swap its log for the kernel's always-full device.
            guard line.hasPrefix("run "), let directory = line.components(separatedBy: "reports in ").last else {
                return
            }
            let log = directory.dropLast() + "/run.jsonl"
            try? FileManager.default.removeItem(atPath: String(log))
            try? FileManager.default.createSymbolicLink(atPath: String(log), withDestinationPath: "/dev/full")
        }
        #expect(result.status == .infrastructure)
        let reason = try #require(result.interruption?.description)
        #expect(reason.hasPrefix("cannot write \(result.directory)/run.jsonl: No space left on device"))
        #expect(result.benchTime < .seconds(600))
        try XMLSchema.expectValid("\(result.directory)/junit.xml")
        #expect(result.result.counts.passed > 0)
        // What the full disk refused is in the rescue directory: the log's tail, ending with the run's end.
        let rescue = try #require(result.rescue)
        #expect(rescue.hasPrefix(NSTemporaryDirectory()))
        let tail = try RunLog(jsonLines: try Data(contentsOf: URL(fileURLWithPath: "\(rescue)/run.jsonl.unwritten")))
        guard case let .runFinished(end)? = tail.events.last else {
            Issue.record("the rescued log does not end with runFinished")
            return
        }
        #expect(end.interruption == reason)
        #expect(!FileManager.default.fileExists(atPath: "\(rescue)/junit.xml"))
        // The last line says where each part went.
        #expect(result.reportsLine.hasPrefix("reports: \(result.directory)/ holds junit.xml, summary.md"))
        #expect(result.reportsLine.contains("; the rest is in \(rescue)/ (run.jsonl.unwritten); "))
        try? FileManager.default.removeItem(atPath: rescue)
    }
}
