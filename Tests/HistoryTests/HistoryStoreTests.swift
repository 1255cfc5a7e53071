import Benches
import Foundation
import History
import Orchestrator
import Reports
import Testing

/// Runs stored and read back, on SQLite and on PostgreSQL: the schema from empty, a real campaign's run, imports
/// from a run directory, baselines, listing.
@Suite("History store")
struct HistoryStoreTests {
    /// One real campaign on the virtual farm, shared by the tests (its checks, values and samples are what a run
    /// stores).
    static let campaign = Task { () throws -> Ran in
        let rig = try HistoryTesting.rigFile(HistoryTesting.smallRig())
        let ran = try await Campaign(rigFile: rig, benches: BenchBuilder()).run(
            RunOptions(
                outputRoot: HistoryTesting.temporaryDirectory("runs"),
                provenance: RigProvenance.read(rigFile: rig, host: "host-a")))
        return Ran(runID: ran.runID, directory: ran.directory, raw: ran.result, result: withSamples(ran.result))
    }

    struct Ran: Sendable {
        var runID: String
        var directory: String
        /// The run as the campaign folded it.
        var raw: RunResult
        /// The same, with samples behind every percentile (``withSamples(_:)``).
        var result: RunResult
    }

    /// `result` with raw samples behind every check's percentiles. The suites hand theirs to
    /// `CheckRecorder.record` as they come to it; until every suite does, a check without any gets samples made
    /// from its own percentiles (p50 and p95, and values between), so that sample storage is tested on a real
    /// run's shape either way.
    static func withSamples(_ result: RunResult) -> RunResult {
        var result = result
        for b in result.boards.indices {
            for t in result.boards[b].tests.indices where result.boards[b].tests[t].samples.isEmpty {
                let test = result.boards[b].tests[t]
                var made: [MetricSamples] = []
                for value in test.measurements where value.statistic == .p50 {
                    let p95 = test.measurements.first { $0.metric == value.metric && $0.statistic == .p95 }?.value
                    let high = p95 ?? value.value * 1.2
                    let values = (0..<12).map { value.value + (high - value.value) * Double($0 % 6) / 5 }
                    made.append(MetricSamples(metric: value.metric, unit: value.unit, values: values))
                }
                result.boards[b].tests[t].samples = made
            }
        }
        return result
    }

    @Test(
        "migrations from an empty database reach the newest schema; opening again applies none twice",
        arguments: Backend.allCases)
    func migrationsFromEmpty(backend: Backend) async throws {
        try await HistoryTesting.withLocation(backend) { location in
            let first = try await History.open(location)
            #expect(try await first.schemaVersion() == HistorySchema.latestVersion)
            #expect(try await first.runs(rig: nil, last: nil).isEmpty)
            #expect(try await first.leases().leases.isEmpty)
            await first.close()
            let again = try await History.open(location)
            #expect(try await again.schemaVersion() == HistorySchema.latestVersion)
            await again.close()
        }
    }

    @Test(
        "a real campaign's run round-trips: run, boards, every outcome, every value, samples",
        arguments: Backend.allCases)
    func campaignRoundTrip(backend: Backend) async throws {
        let campaign = try await Self.campaign.value
        let result = campaign.result
        let expected = try RunRows(result)
        #expect(expected.samples.count > 0, "the campaign recorded no samples")
        #expect(expected.values.count > 20)
        try await HistoryTesting.withHistory(backend) { history in
            try await history.store(result)
            let id = campaign.runID
            let run = try #require(try await history.run(id))
            #expect(run.host == "host-a")
            #expect(run.rig == "history-farm")
            #expect(run.rigSHA256 == RigProvenance.sha256(ofFile: result.run!.rigFile))
            #expect(run.rigSHA256?.count == 64)
            #expect(run.seed == 42)
            #expect(run.passed == result.counts.passed && run.failed == result.counts.failed)
            #expect(run.skipped == result.counts.skipped && run.errors == result.counts.errors)
            #expect(abs(run.started.timeIntervalSince(result.run!.wallStart)) < 1e-6)
            #expect(
                run.ended != nil
                    && run.status == (result.counts.failed + result.counts.errors > 0 ? "failed" : "passed"))

            let boards = try await history.boards(run: id)
            #expect(boards.map(\.board) == result.boards.map(\.id))
            #expect(boards.map(\.identity) == result.boards.map(\.identity))
            #expect(boards.allSatisfy { $0.firmware != nil && !$0.firmware!.isEmpty })
            #expect(boards.first?.profile == "esp-point")

            let outcomes = try await history.outcomes(run: id)
            #expect(outcomes == expected.outcomes)

            let values = try await history.values(run: id, board: nil, metric: nil)
            #expect(values.count == expected.values.count)
            for (stored, original) in zip(values, expected.values) {
                #expect(stored.metric == original.metric && stored.statistic == original.statistic)
                #expect(stored.value == original.value || (stored.value.isNaN && original.value.isNaN))
            }

            let samples = try await history.samples(run: id, board: nil, metric: nil)
            #expect(samples.count == expected.samples.count)
            for (stored, original) in zip(samples, expected.samples) {
                #expect(stored.metric == original.metric && stored.board == original.board)
                #expect(stored.values == original.values.map { Double(Float($0)) })
            }
            let definitions = try await history.definitions(run: id)
            #expect(definitions["handshake.connect_ms"]?.isEmpty == false)
        }
    }

    @Test("values and samples load by board and metric", arguments: Backend.allCases)
    func loadByBoardAndMetric(backend: Backend) async throws {
        let campaign = try await Self.campaign.value
        let expected = try RunRows(campaign.result)
        let metric = "handshake.connect_ms"
        try await HistoryTesting.withHistory(backend) { history in
            try await history.store(campaign.result)
            let values = try await history.values(run: campaign.runID, board: "esp-01", metric: metric)
            #expect(values == expected.values.filter { $0.board == "esp-01" && $0.metric == metric })
            #expect(!values.isEmpty)
            let samples = try await history.samples(run: campaign.runID, board: "esp-01", metric: metric)
            let original = expected.samples.filter { $0.board == "esp-01" && $0.metric == metric }
            #expect(samples.map(\.values.count) == original.map(\.values.count))
            #expect(samples.flatMap(\.values).count >= 6)
        }
    }

    @Test("a run directory imports to the same rows, and importing twice keeps one copy", arguments: Backend.allCases)
    func importRunDirectory(backend: Backend) async throws {
        let campaign = try await Self.campaign.value
        let imported = try RunImport.read(directory: campaign.directory)
        let direct = try RunRows(campaign.raw)
        #expect(imported.outcomes == direct.outcomes)
        #expect(imported.values == direct.values)
        #expect(imported.samples == direct.samples)
        try await HistoryTesting.withHistory(backend) { history in
            try await history.store(imported)
            try await history.store(imported)
            #expect(try await history.runs(rig: nil, last: nil).map(\.runID) == [campaign.runID])
            #expect(try await history.outcomes(run: campaign.runID).count == direct.outcomes.count)
        }
    }

    @Test("another host's run with the same id is refused, not merged", arguments: Backend.allCases)
    func sameIDOtherHost(backend: Backend) async throws {
        let campaign = try await Self.campaign.value
        var rows = try RunRows(campaign.result)
        try await HistoryTesting.withHistory(backend) { history in
            try await history.store(rows)
            rows.run.host = "host-b"
            let error = await #expect(throws: HistoryError.self) { try await history.store(rows) }
            #expect(
                error?.message.contains("from host host-a is already stored") == true, "\(String(describing: error))")
        }
    }

    @Test("runs list newest first, by rig and last N; baselines set and resolve", arguments: Backend.allCases)
    func listingAndBaselines(backend: Backend) async throws {
        let campaign = try await Self.campaign.value
        try await HistoryTesting.withHistory(backend) { history in
            for (index, rig) in ["alpha", "beta", "alpha"].enumerated() {
                var rows = try RunRows(campaign.result)
                rows.run.runID = "\(rig)-\(index)"
                rows.run.rig = rig
                rows.run.started = Date(timeIntervalSince1970: 1_800_000_000 + Double(index) * 60)
                try await history.store(rows)
            }
            #expect(try await history.runs(rig: nil, last: nil).map(\.runID) == ["alpha-2", "beta-1", "alpha-0"])
            #expect(try await history.runs(rig: "alpha", last: nil).map(\.runID) == ["alpha-2", "alpha-0"])
            #expect(try await history.runs(rig: nil, last: 1).map(\.runID) == ["alpha-2"])

            try await history.setBaseline("release-1", run: "alpha-0", by: "tester")
            #expect(try await history.resolve("release-1").runID == "alpha-0")
            try await history.setBaseline("release-1", run: "beta-1", by: "tester")
            #expect(try await history.resolve("release-1").runID == "beta-1")
            #expect(try await history.resolve("alpha-2").runID == "alpha-2")
            let unknown = await #expect(throws: HistoryError.self) { try await history.resolve("nope") }
            #expect(unknown?.message.contains("no run or baseline named 'nope'") == true)
            let missing = await #expect(throws: HistoryError.self) {
                try await history.setBaseline("x", run: "no-such-run", by: "tester")
            }
            #expect(missing?.message.contains("no run no-such-run in history") == true)
        }
    }

    @Test("compare pairs both runs' values per board, check, metric and statistic", arguments: Backend.allCases)
    func compareRuns(backend: Backend) async throws {
        let campaign = try await Self.campaign.value
        try await HistoryTesting.withHistory(backend) { history in
            var a = try RunRows(campaign.result)
            a.run.runID = "run-a"
            var b = a
            b.run.runID = "run-b"
            b.values = b.values.map { value in
                var value = value
                if value.metric == "handshake.connect_ms", value.statistic == "p50" { value.value *= 2 }
                return value
            }
            try await history.store(a)
            try await history.store(b)
            let comparison = try await RunComparison.load(
                history, a: "run-a", b: "run-b", metric: "handshake.connect_ms")
            #expect(!comparison.metrics.isEmpty)
            let withP50 = comparison.metrics.filter { $0.statistics.contains { $0.statistic == "p50" } }
            #expect(withP50.count >= 2)
            for metric in withP50 {
                let p50 = try #require(metric.statistics.first { $0.statistic == "p50" })
                #expect(p50.b == p50.a.map { $0 * 2 })
                #expect(p50.relativeChange == 1 || p50.a == 0)
                #expect(metric.samplesA == metric.samplesB && metric.samplesA > 0)
                #expect(metric.verdict == nil)
                #expect(metric.statistics.filter { $0.statistic != "p50" }.allSatisfy { $0.change == 0 })
            }
            let text = HistoryText.comparison(comparison).joined(separator: "\n")
            #expect(text.contains("(+100.0 %)"))
        }
    }
}
