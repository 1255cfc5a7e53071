import BLECore
import Foundation
import Reports
import Testing

@testable import Orchestrator

/// `soak` and `restore` on the virtual farm, through a whole campaign as `blerig run` does it.
@Suite("Soak and restore suites on the virtual farm")
struct SoakSuiteTests {
    static func rig(
        drops: Double, suites: String, boards: String = "  - {id: nano-01, profile: nano33-ble-sense}"
    )
        -> String
    {
        """
        rig: soak-farm
        radio: virtual
        boards:
        \(boards)
        virtual:
          seed: 42
          faults: {drops_per_hour: \(drops)}
        suites:
        \(suites)
        """
    }

    static func values(_ result: CampaignResult, board: String = "nano-01") -> [String: Double] {
        var values: [String: Double] = [:]
        for test in result.result.boards.first(where: { $0.id == board })?.tests ?? [] {
            for m in test.measurements { values["\(m.metric) \(m.statistic)"] = m.value }
        }
        return values
    }

    static func soak(_ board: BoardResult?) -> TestResult? { board?.tests.first { $0.suite == "soak" } }

    @Test("an injected drop rate lies inside the measured 95 % interval, and the check fails for a rate outside it")
    func injectedRate() async throws {
        let inside = try await CampaignTests.run(
            Self.rig(
                drops: 6,
                suites: "  - soak: {duration_h: 40, traffic_interval_s: 600, expected_drops_per_hour: 6}"))
        let values = Self.values(inside)
        let test = Self.soak(inside.result.boards.first)
        #expect(test?.outcome == .passed, "\(String(describing: test?.outcome))")
        let drops = try #require(values["link.drops count"])
        let hours = try #require(values["link.connection_hours value"])
        let (lower, upper) = (
            try #require(values["link.drop_rate ci95_lower"]), try #require(values["link.drop_rate ci95_upper"])
        )
        #expect(drops > 180 && drops < 300, "about 240 drops in 40 h at 6/h: \(drops)")
        #expect(hours > 39 && hours <= 40)
        #expect(lower < 6 && 6 < upper)
        // Every injected drop is a supervision timeout.
        #expect(values["link.drop_rate reason_0x08"] == values["link.drop_rate value"])
        #expect(values["link.reconnect_ms count"] == drops)
        #expect(values["link.sessions count"] == drops + 1)
        // The interval is what the exact Poisson bounds give for those counts.
        let interval = PoissonInterval(count: Int(drops), exposure: hours)
        #expect(abs(interval.lower - lower) < 1e-9 && abs(interval.upper - upper) < 1e-9)

        let outside = try await CampaignTests.run(
            Self.rig(
                drops: 6,
                suites: "  - soak: {duration_h: 40, traffic_interval_s: 600, expected_drops_per_hour: 8.5}"))
        let failed = Self.soak(outside.result.boards.first)
        guard case .failed(let message, _)? = failed?.outcome else {
            Issue.record("the check passed with 8.5/h outside the interval: \(String(describing: failed?.outcome))")
            return
        }
        #expect(message.contains("8.5000 drops/h lies outside the measured 95 % interval"))
        #expect(Self.values(outside)["link.drops count"] == drops, "the same seed measured the same")
    }

    @Test("with no faults the soak sees no drop, and its transitions are in the JUnit system-out")
    func quietLink() async throws {
        let result = try await CampaignTests.run(
            Self.rig(drops: 0, suites: "  - soak: {duration_h: 24, expected_drops_per_hour: 0}"))
        #expect(result.result.failingCheckLines() == [])
        let values = Self.values(result)
        #expect(values["link.drops count"] == 0)
        #expect(values["link.drop_rate ci95_upper"].map { abs($0 - 3.6888794541139354 / 24) < 1e-3 } == true)
        let junit = try String(contentsOfFile: "\(result.directory)/junit.xml", encoding: .utf8)
        #expect(junit.contains("central.unpairedScanning → central.pairing: found"))
        #expect(junit.contains("central.pairing → central.pairedConnected: paired with"))
        #expect(junit.contains("link.drop_rate value 0 /h"))
    }

    @Test("restore passes on every profile: killed mid-connection, restored from the file, reconnected on demand")
    func restoreEveryProfile() async throws {
        let boards = """
              - {id: esp-01, profile: esp-point}
              - {id: nano-01, profile: nano33-ble-sense}
              - {id: hrm-01, profile: hrm}
            """
        let result = try await CampaignTests.run(Self.rig(drops: 0, suites: "  - restore", boards: boards))
        #expect(result.result.failingCheckLines() == [])
        for board in result.result.boards {
            let test = board.tests.first { $0.suite == "restore" }
            #expect(test?.outcome == .passed, "\(board.id): \(String(describing: test?.outcome))")
            #expect(test?.measurements.contains { $0.metric == "restore.reconnect_ms" && $0.value > 0 } == true)
            let moves = board.transitions.map { "\($0.from)→\($0.to)" }
            #expect(moves.contains("central.unpairedScanning→central.pairedDisconnected"), "\(board.id): \(moves)")
        }
    }
}
