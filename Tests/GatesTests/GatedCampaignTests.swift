import Benches
import Foundation
import Orchestrator
import Reports
import Testing

@testable import Gates

/// Gates on whole campaigns on the virtual farm: the run's exit status, gates.json, the JUnit's gates suite,
/// and regressions between two real runs.
@Suite("Gated campaigns", .serialized)
struct GatedCampaignTests {
    static func rig(interval: String = "15", seed: Int = 42, gates: String = "") -> String {
        """
        rig: gated
        radio: virtual
        boards:
          - {id: esp-01, profile: esp-point}
          - {id: nano-01, profile: nano33-ble-sense}
        virtual:
          seed: \(seed)
          link: {interval_ms: \(interval)}
        suites:
          - discovery
          - handshake: {connections: 20}
          - commands: {repetitions: 10}
        \(gates)
        """
    }

    static func scratch() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("blerig-gated-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    static func write(_ text: String, _ name: String, in directory: URL) throws -> String {
        let path = directory.appendingPathComponent(name).path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    static func campaign(_ yaml: String, in directory: URL, gates: String? = nil, baseline: String? = nil)
        async throws -> CampaignResult
    {
        let campaign = try Campaign(
            rigFile: write(yaml, "rig-\(UUID()).yaml", in: directory), benches: BenchBuilder())
        var judge: GateJudge?
        if let file = try GatesFile.load(for: campaign.rig, override: gates) {
            judge = GateJudge(file, baseline: try baseline.map { try StoredRun.baseline($0) })
        }
        return try await campaign.run(
            RunOptions(outputRoot: directory.appendingPathComponent("reports").path, judge: judge))
    }

    static let gates = """
        gates:
          - handshake.ready_ms.p50 <= 800
          - {gate: gatt.write_rtt_ms.p95 <= 200, profile: esp-point}
          - {regression: handshake.ready_ms, max_increase: 10%, min_effect_ms: 5, min_samples: 20}
          - {regression: gatt.write_rtt_ms, max_increase: 10%, min_effect_ms: 5, min_samples: 20, test: both}
        """

    @Test("an impossible gate breaches: exit status 4, gates.json, a failed testcase in the JUnit's gates suite")
    func impossibleGate() async throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let impossible = try Self.write(
            "gates:\n  - handshake.ready_ms.p50 <= 1\n  - gatt.mtu.value >= 23\n", "impossible.yaml", in: directory)
        let result = try await Self.campaign(Self.rig(), in: directory, gates: impossible)
        #expect(result.result.counts.failed + result.result.counts.errors == 0)
        #expect(result.status == .gateBreached)
        #expect(result.status.rawValue == 4)
        #expect(result.gates.map(\.decision) == [.breached, .held])
        let json = try Data(contentsOf: URL(fileURLWithPath: result.directory + "/gates.json"))
        let report = try GateReport.decode(json: json)
        #expect(report.breached == 1 && report.held == 1 && report.file == impossible)
        let junit = try String(contentsOfFile: result.directory + "/junit.xml", encoding: .utf8)
        #expect(junit.contains("<testsuite name=\"gates\" tests=\"2\" failures=\"1\" errors=\"0\" skipped=\"0\""))
        #expect(junit.contains("classname=\"gates.rig\""))
        #expect(junit.contains("type=\"breached\""))
        let summary = try String(contentsOfFile: result.directory + "/summary.txt", encoding: .utf8)
        #expect(summary.contains("BREACHED handshake.ready_ms.p50 <= 1 [rig]"))
    }

    @Test("the rig's gates: file is used; the run's own samples are recorded per board and check")
    func rigGatesHold() async throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let gates = try Self.write(Self.gates, "gates.yaml", in: directory)
        let result = try await Self.campaign(Self.rig(gates: "gates: \(gates)"), in: directory)
        #expect(result.status == .passed)
        // No baseline: the regression gates say so rather than hold.
        #expect(result.gates.map(\.decision) == [.held, .held, .notEnoughData, .notEnoughData])
        for board in result.result.boards {
            let run = GateRun(result.result)
            let samples = try #require(run.board(board.id)?.samples["handshake.ready_ms"])
            #expect(samples.values.count == 20)
            #expect(samples.unit == .milliseconds)
            #expect(run.board(board.id)?.samples["handshake.connect_ms"]?.values.count == 20)
            #expect(run.board(board.id)?.samples["gatt.write_rtt_ms"]?.values.count == 20)
        }
    }

    @Test("a slower link in a second run is caught against the first; a run against itself, or a re-seeded one, is not")
    func regressionBetweenRuns() async throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let gates = try Self.write(Self.gates, "gates.yaml", in: directory)
        let first = try await Self.campaign(Self.rig(), in: directory)
        #expect(first.status == .passed)
        let file = try GatesFile.load(contentsOf: gates)
        let baseline = try StoredRun.baseline(first.directory)

        let itself = await GateJudge(file, baseline: baseline).report(try StoredRun.load(first.directory))
        #expect(itself.verdicts.map(\.decision) == [.held, .held, .held, .held], "\(itself.text)")

        let reseeded = try await Self.campaign(Self.rig(seed: 7), in: directory, gates: gates, baseline: first.directory)
        #expect(reseeded.status == .passed, "\(reseeded.gates.map(\.message))")
        #expect(reseeded.gates.map(\.decision) == [.held, .held, .held, .held])

        // 30 ms connection events instead of 15: every request waits for a later event.
        let slower = try await Self.campaign(
            Self.rig(interval: "30"), in: directory, gates: gates, baseline: first.directory)
        #expect(slower.status == .gateBreached)
        #expect(slower.gates[2].decision == .breached, "\(slower.gates[2].message)")
        #expect(slower.gates[3].decision == .breached, "\(slower.gates[3].message)")
        let measured = try #require(slower.gates[2].measured)
        let base = try #require(slower.gates[2].baseline)
        #expect(measured > base * 1.1)
    }
}
