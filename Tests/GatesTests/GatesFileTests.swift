import Foundation
import Orchestrator
import Reports
import Testing

@testable import Gates

/// The gates file format (docs/gates.md): what it accepts, and every mistake at its line and column.
@Suite("Gates file")
struct GatesFileTests {
    static let boards = ["esp-01": "esp-point", "esp-02": "esp-point", "nano-01": "nano33-ble-sense"]

    static func parse(_ yaml: String) throws(RigFileError) -> GatesFile {
        try GatesFile.parse(yaml: yaml, file: "gates.yaml", boards: boards)
    }

    /// Every issue of `yaml` as `line:column: message`.
    static func issues(_ yaml: String) -> [String] {
        do {
            _ = try parse(yaml)
            return []
        } catch {
            return error.issues.map { "\($0.location.lineAndColumn): \($0.message)" }
        }
    }

    @Test("the documented example reads as four gates with their scopes, limits and defaults")
    func example() throws {
        let file = try Self.parse(
            """
            gates:
              - handshake.ready_ms.p50 <= 800                 # whole rig (every board)
              - {gate: link.drop_rate.value <= 0.5, profile: esp-point}
              - {gate: ota.success_rate.first_try >= 99.2%, board: esp-01}
              - {regression: handshake.ready_ms, max_increase: 10%, min_effect_ms: 5, min_samples: 20, test: mann-whitney, alpha: 0.01}
              - regression: ota.throughput_kBps.p95
                max_decrease: 15%
                test: both
                board: esp-02
              - {regression: sync.latency_s, statistic: p99, max_increase: 50%, min_effect_ms: 250}
            """)
        #expect(file.gates.count == 6)
        #expect(
            file.gates[0].rule
                == .absolute(AbsoluteLimit(metric: "handshake.ready_ms", statistic: .p50, comparison: .atMost, limit: 800)))
        #expect(file.gates[0].scope == .rig)
        #expect(file.gates[0].location.lineAndColumn == "2:5")
        #expect(file.gates[1].scope == .profile("esp-point"))
        #expect(
            file.gates[2].rule
                == .absolute(
                    AbsoluteLimit(
                        metric: "ota.success_rate", statistic: Statistic("first_try"), comparison: .atLeast,
                        limit: 0.992)))
        #expect(file.gates[2].scope == .board("esp-01"))
        #expect(
            file.gates[3].rule
                == .regression(
                    RegressionLimit(metric: "handshake.ready_ms", maxChange: 0.1, minEffect: 5, minSamples: 20)))
        #expect(
            file.gates[4].rule
                == .regression(
                    RegressionLimit(
                        metric: "ota.throughput_kBps", quantile: 0.95, direction: .decrease, maxChange: 0.15,
                        test: .both)))
        #expect(file.gates[4].scope == .board("esp-02"))
        // min_effect_ms on a metric in seconds is converted: 250 ms = 0.25 s.
        guard case .regression(let sync) = file.gates[5].rule else { Issue.record("not a regression"); return }
        #expect(sync.minEffect == 0.25 && sync.quantile == 0.99)
        #expect(file.gates[0].text == "handshake.ready_ms.p50 <= 800")
        #expect(file.gates[3].text == "handshake.ready_ms.p50 regression: at most +10 %")
    }

    @Test(
        "each mistake is reported at its line and column with what was expected",
        arguments: [
            ("gates:\n  - handshake.ready_ms.p50 = 800\n", "2:28: unknown comparison '=' (expected <=, <, >= or >)"),
            ("gates:\n  - handshake.ready_ms <= 800\n", "2:5: 'handshake.ready_ms' is not a metric and statistic (handshake.ready_ms needs a statistic: handshake.ready_ms.p50, .p95, .max, .count, .value, ...)"),
            ("gates:\n  - handshake.ready_ms.p50 <= fast\n", "2:31: the limit of a gate must be a number (or a percentage such as 99.2%), found 'fast'"),
            ("gates:\n  - handshake.ready_ms.p50\n", "2:5: gate 'handshake.ready_ms.p50' has no comparison (write <metric>.<statistic> <= <limit>; <, >= and > also work)"),
            ("gates:\n  - {gate: a.b.c < 1, board: esp-99}\n", "2:30: unknown board 'esp-99' (the rig has esp-01, esp-02 and nano-01) (did you mean 'esp-01'?)"),
            ("gates:\n  - {gate: a.b.c < 1, profile: esp-pointt}\n", "2:32: unknown profile 'esp-pointt' (expected esp-point, nano33-ble-sense or hrm)"),
            ("gates:\n  - {gate: a.b.c < 1, profile: hrm, board: esp-01}\n", "2:23: a gate is for one board or one profile, not both (leave both out for every board)"),
            ("gates:\n  - {regression: handshake.ready_ms}\n", "2:5: a regression gate needs max_increase (larger is worse, such as latency) or max_decrease (smaller is worse, such as throughput), as a percentage: max_increase: 10%"),
            ("gates:\n  - {regression: handshake.ready_ms, max_increase: 0.1}\n", "2:52: 'max_increase' must be a percentage such as 10%, found '0.1'"),
            ("gates:\n  - {regression: notify.gaps, max_increase: 10%, min_effect_ms: 5}\n", "2:50: min_effect_ms needs a metric measured in ms or s (a name ending in _ms or _s); notify.gaps is not: write min_effect in its own unit"),
            ("gates:\n  - {regression: handshake.ready_ms, max_increase: 10%, alpha: 0.9}\n", "2:64: 'alpha' must be between 1e-09 and 0.5, found 0.9"),
            ("gates:\n  - {regression: handshake.ready_ms, max_increase: 10%, tset: both}\n", "2:57: unknown key 'tset' in a gate (did you mean 'test'?)"),
            ("gates:\n  - {gate: a.b.c < 1, regression: a.b, max_increase: 1%}\n", "2:23: a gate has either 'gate' (a limit) or 'regression' (against a baseline), not both"),
            ("gates:\n  - {board: esp-01}\n", "2:5: a gate needs 'gate' (`gate: handshake.ready_ms.p50 <= 800`) or 'regression' (`regression: handshake.ready_ms`)"),
            ("gates:\n  - a.b.p50 < 1\n  - a.b.p50 < 1\n", "3:5: the gate 'a.b.p50 < 1' for rig is written twice"),
            ("gate:\n  - a.b.p50 < 1\n", "1:1: unknown key 'gate' in the gates file (did you mean 'gates'?)"),
            ("gates: []\n", "1:8: 'gates' lists no gate"),
            ("gates: a.b.p50 < 1\n", "1:8: 'gates' must be a list of gates, found 'a.b.p50 < 1'"),
        ])
    func mistakes(_ yaml: String, _ expected: String) {
        #expect(Self.issues(yaml).contains(expected), "\(Self.issues(yaml))")
    }

    @Test("a file with several mistakes reports all of them, in order")
    func everyMistake() {
        let issues = Self.issues(
            """
            gates:
              - handshake.ready_ms.p50 =< 800
              - {gate: a.b.c < 1, board: nobody}
              - {regression: x, max_increase: 10%}
            """)
        #expect(issues.count == 3, "\(issues)")
        #expect(issues.map { $0.prefix(2) } == ["2:", "3:", "4:"])
    }

    @Test("a YAML syntax error stops at its place")
    func syntax() {
        let issues = Self.issues("gates:\n  - {gate: a.b.c < 1\n")
        #expect(issues.count == 1)
        #expect(issues.first?.hasPrefix("3:") == true || issues.first?.hasPrefix("2:") == true, "\(issues)")
    }

    @Test("a missing gates file named by --gates is an error naming the file")
    func missingFile() {
        #expect(throws: RigFileError.self) { try GatesFile.load(contentsOf: "/nonexistent/gates.yaml") }
        do {
            _ = try GatesFile.load(contentsOf: "/nonexistent/gates.yaml")
        } catch {
            #expect(error.description == "/nonexistent/gates.yaml: no such file")
        }
    }

    @Test("a rig whose gates: file does not exist fails to load, at the rig's gates: line and column")
    func rigGatesMissing() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("blerig-gates-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let rigPath = directory.appendingPathComponent("rig.yaml").path
        let yaml = """
            rig: r
            radio: virtual
            boards: [{id: esp-01, profile: esp-point}]
            suites: [discovery]
            gates: /nonexistent/gates.yaml
            """
        try yaml.write(toFile: rigPath, atomically: true, encoding: .utf8)
        do {
            _ = try RigFile.load(contentsOf: rigPath, knownSuites: ["discovery"])
            Issue.record("a rig with a missing gates file loaded")
        } catch {
            #expect(
                error.description
                    == "\(rigPath):5:8: gates file '/nonexistent/gates.yaml' does not exist (paths are relative to the "
                    + "working directory)")
        }
        // With the file there, the rig loads and its gates are read with the rig's boards.
        let gatesPath = directory.appendingPathComponent("gates.yaml").path
        try "gates:\n  - {gate: handshake.ready_ms.p50 <= 800, board: esp-01}\n".write(
            toFile: gatesPath, atomically: true, encoding: .utf8)
        try yaml.replacingOccurrences(of: "/nonexistent/gates.yaml", with: gatesPath).write(
            toFile: rigPath, atomically: true, encoding: .utf8)
        let rig = try RigFile.load(contentsOf: rigPath, knownSuites: ["discovery"])
        let file = try #require(try GatesFile.load(for: rig))
        #expect(file.gates.map(\.scope) == [.board("esp-01")])
        // --gates replaces the rig's file; a board the rig does not have is an error in that file.
        let other = directory.appendingPathComponent("other.yaml").path
        try "gates:\n  - {gate: a.b.c < 1, board: esp-02}\n".write(toFile: other, atomically: true, encoding: .utf8)
        #expect(throws: RigFileError.self) { try GatesFile.load(for: rig, override: other) }
    }

    @Test("the shipped rigs/gates.yaml reads against rigs/virtual.yaml's boards")
    func shippedGates() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let rig = try RigFile.parse(
            yaml: String(contentsOf: root.appendingPathComponent("rigs/virtual.yaml"), encoding: .utf8),
            file: "rigs/virtual.yaml", knownSuites: Orchestrator.Campaign.suiteNames)
        let boards = Dictionary(uniqueKeysWithValues: rig.boards.map { ($0.id, $0.profile.rawValue) })
        let file = try GatesFile.load(contentsOf: root.appendingPathComponent("rigs/gates.yaml").path, boards: boards)
        #expect(file.gates.count >= 6)
        #expect(file.hasRegressionGates)
    }
}
