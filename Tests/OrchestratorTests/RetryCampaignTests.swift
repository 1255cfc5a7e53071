import BLECore
import BenchCore
import Foundation
import Reports
import Testing

@testable import Orchestrator

/// Retries, recovery and quarantine on the wall-clock fake bench: a board that ignores connections.
@Suite("Retries and quarantine in a campaign")
struct RetryCampaignTests {
    static func rig(_ extra: String, suites: String = "[discovery, {commands: {repetitions: 2}}]") -> String {
        """
        rig: retries
        radio: {kind: hci, transport: "tcp:127.0.0.1:9"}
        boards:
          - {id: nano-1, profile: nano33-ble-sense, match: {address: 84:CC:A8:00:00:01}}
          - {id: nano-2, profile: nano33-ble-sense, match: {address: 84:CC:A8:00:00:02}}
        suites: \(suites)
        \(extra)
        """
    }

    static func run(_ rig: String, deafFor connections: Int) async throws -> CampaignResult {
        let launcher = WallClockBenchTests.FakeLauncher()
        let path = try RigTesting.temporaryFile(Array(rig.utf8))
        let campaign = try Campaign(rigFile: path, benches: launcher)
        // The first board goes deaf once the campaign has brought it up.
        let deafen = Task {
            while launcher.nanos.withLock({ $0.first })?.advertising != true { try await Task.sleep(for: .milliseconds(5)) }
            launcher.nanos.withLock { $0[0].state.withLock { $0.ignoredConnections = connections } }
        }
        let result = try await campaign.run(RunOptions(outputRoot: CampaignTests.outputRoot()))
        try await deafen.value
        return result
    }

    @Test("a board failure is recovered and retried within retries.board; the check that passes then is flaky")
    func boardFailureRetriedThenFlaky() async throws {
        let result = try await Self.run(Self.rig("retries: {board: 1}"), deafFor: 1)
        #expect(result.status == .passed, "\(result.result.failingCheckLines())")
        let nano1 = try #require(result.result.boards.first { $0.id == "nano-1" })
        let table = try #require(nano1.tests.first { $0.suite == "discovery" && $0.name == "GATT table complete" })
        #expect(table.outcome == .passed)
        #expect(table.isFlaky)
        #expect(table.earlierAttempts.map(\.failureClass) == [.board])
        // Recovery was recorded with the step that worked; the soft reboot was typed on the console.
        #expect(nano1.transitions.contains { $0.reason.hasPrefix("recovered by soft reboot") }, "\(nano1.transitions)")
        #expect(nano1.finalState == "off")
        // The other board was not touched by any of it.
        let nano2 = try #require(result.result.boards.first { $0.id == "nano-2" })
        #expect(nano2.tests.allSatisfy { $0.earlierAttempts.isEmpty && $0.outcome == .passed })
    }

    @Test("without retries the board failure stands, classed as the board's, and the run exits 1")
    func noRetryByDefault() async throws {
        let result = try await Self.run(Self.rig(""), deafFor: 1)
        #expect(result.status == .checksFailed)
        let table = try #require(
            result.result.boards.first { $0.id == "nano-1" }?.tests.first { $0.name == "GATT table complete" })
        #expect(table.failureClass == .board)
        #expect(table.earlierAttempts.isEmpty)
        #expect(result.result.finished?.nonPasses.map(\.failureClass) == [.board])
    }

    @Test("a board that keeps failing after its retries is quarantined; its later suites are not run, the rest go on")
    func keepsFailingIsQuarantined() async throws {
        let result = try await Self.run(Self.rig("retries: {board: 1}"), deafFor: 1000)
        #expect(result.status == .checksFailed)
        let nano1 = try #require(result.result.boards.first { $0.id == "nano-1" })
        #expect(nano1.transitions.contains { $0.to == "quarantined" }, "\(nano1.transitions)")
        let table = try #require(nano1.tests.first { $0.name == "GATT table complete" })
        #expect(table.attempt == 2)
        #expect(table.failureClass == .board)
        let commands = nano1.tests.filter { $0.suite == "commands" }
        #expect(!commands.isEmpty)
        for check in commands {
            guard case .skipped(let reason) = check.outcome else {
                Issue.record("commands.\(check.name) ran on a quarantined board: \(check.outcome)")
                continue
            }
            #expect(reason.contains("quarantined"))
        }
        let nano2 = try #require(result.result.boards.first { $0.id == "nano-2" })
        #expect(nano2.counts.passed > 0 && nano2.counts.failed + nano2.counts.errors == 0)
    }
}
