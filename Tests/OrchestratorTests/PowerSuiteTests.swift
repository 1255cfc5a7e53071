import BLECore
import Foundation
import Reports
import Testing

@testable import Orchestrator

@Suite("power suite")
struct PowerSuiteTests {
    @Test("every profile recovers from power cycles: power.recover_s measured, the console says POWERON")
    func cyclesOnTheFarm() async throws {
        let result = try await CampaignTests.run(
            CampaignTests.rig(suites: "  - power: {cycles: 3, off_s: 0.5}"))
        #expect(result.status == .passed, "\(result.result.failingCheckLines())")
        for board in result.result.boards {
            let recovers = try #require(board.tests.first { $0.suite == "power" && $0.name == PowerSuite.recovers })
            let p50 = try #require(recovers.measurements.first { $0.metric == "power.recover_s" && $0.statistic == .p50 })
            let count = recovers.measurements.first { $0.metric == "power.recover_s" && $0.statistic == .count }
            #expect(count?.value == 3)
            // A board boots, then advertises: more than nothing, less than the timeout.
            #expect(p50.value > 0 && p50.value < 20, "\(board.id): \(p50.value) s")
            #expect(p50.unit == .seconds)
            #expect(recovers.samples.first { $0.metric == "power.recover_s" }?.values.count == 3)
            let reason = try #require(board.tests.first { $0.name == PowerSuite.resetReason })
            #expect(reason.outcome == .passed, "\(board.id): \(reason.outcome)")
        }
    }

    @Test("the options are checked with their place, all at once")
    func options() throws {
        do {
            _ = try CampaignTests.campaign(
                "rig: t\nradio: virtual\nboards: [{id: b1, profile: hrm}]\nsuites: [{power: {cycles: 0, off_s: -1}}]\n")
            Issue.record("a rig with cycles: 0 and off_s: -1 loaded")
        } catch {
            let text = "\(error)"
            // Both problems in one report: the first in full, the other counted or listed.
            #expect(text.contains("cycles") && (text.contains("off_s") || text.contains("+1 more")), "\(text)")
        }
    }
}
