import BLECore
import Foundation
import Reports
import Testing

@testable import Gates

/// How gates judge a run: scopes, missing numbers, baselines.
@Suite("Gate evaluation")
struct GateEvaluatorTests {
    static func value(_ metric: String, _ statistic: Statistic, _ value: Double, unit: MetricUnit = .milliseconds)
        -> MeasuredValue
    {
        MeasuredValue(metric: metric, statistic: statistic, value: value, unit: unit, definition: "test")
    }

    /// Three boards: two esp-points and a nano; `ready` gives each board's handshake.ready_ms p50 (nil: not
    /// measured), `samples` each board's raw samples.
    static func run(ready: [String: Double?], samples: [String: [Double]] = [:]) -> GateRun {
        let boards = [("esp-01", "esp-point"), ("esp-02", "esp-point"), ("nano-01", "nano33-ble-sense")]
        return GateRun(
            boards: boards.map { id, profile in
                var measurements = [value("gatt.mtu", .value, 247, unit: .bytes)]
                if let p50 = ready[id] ?? nil { measurements.append(value("handshake.ready_ms", .p50, p50)) }
                if profile == "esp-point" { measurements.append(value("ota.success_rate", Statistic("first_try"), 1, unit: .ratio)) }
                return GateRun.Board(
                    id: id, profile: profile, measurements: measurements,
                    samples: samples[id].map {
                        ["handshake.ready_ms": MetricSamples(metric: "handshake.ready_ms", unit: .milliseconds, values: $0)]
                    } ?? [:])
            })
    }

    static func judge(_ yaml: String, _ run: GateRun, baseline: (any BaselineSource)? = nil) async throws
        -> [GateVerdict]
    {
        let file = try GatesFile.parse(yaml: yaml, file: "gates.yaml")
        return await GateEvaluator(file).evaluate(run, baseline: baseline)
    }

    @Test("an absolute gate on the whole rig holds only when every board holds it")
    func wholeRig() async throws {
        let gates = "gates:\n  - handshake.ready_ms.p50 <= 250\n"
        let held = try await Self.judge(gates, Self.run(ready: ["esp-01": 200, "esp-02": 240, "nano-01": 180]))
        #expect(held.map(\.decision) == [.held])
        #expect(held[0].measured == 240)
        #expect(held[0].message == "worst esp-02: handshake.ready_ms.p50 240 ms <= 250 over 3 board(s)")
        let breached = try await Self.judge(gates, Self.run(ready: ["esp-01": 200, "esp-02": 260, "nano-01": 180]))
        #expect(breached.map(\.decision) == [.breached])
        #expect(breached[0].measured == 260)
        #expect(breached[0].message.hasPrefix("esp-02: handshake.ready_ms.p50 260 ms does not hold <= 250"))
        #expect(breached[0].details.contains("defined at gates.yaml:2:5"))
    }

    @Test("a metric no board measured is not enough data, never held")
    func nobodyMeasured() async throws {
        let verdicts = try await Self.judge(
            "gates:\n  - ota.success_rate.value >= 0.99\n  - handshake.ready_ms.p50 <= 250\n",
            Self.run(ready: [:]))
        #expect(verdicts.map(\.decision) == [.notEnoughData, .notEnoughData])
        // The message says which statistics the metric does have.
        #expect(verdicts[0].message == "no board in rig measured ota.success_rate.value (ota.success_rate has first_try)")
        #expect(verdicts[1].message.contains("no board measured handshake.ready_ms at all"))
    }

    @Test("a board that did not measure what boards of its profile did makes the gate not enough data")
    func boardMissingItsNumber() async throws {
        let verdicts = try await Self.judge(
            "gates:\n  - handshake.ready_ms.p50 <= 250\n  - {gate: handshake.ready_ms.p50 <= 250, profile: nano33-ble-sense}\n",
            Self.run(ready: ["esp-01": 200, "nano-01": 180]))
        #expect(verdicts.map(\.decision) == [.notEnoughData, .held])
        #expect(verdicts[0].message.hasPrefix("esp-02 did not measure handshake.ready_ms.p50"))
        // ...but a breach elsewhere is still a breach.
        let breached = try await Self.judge(
            "gates:\n  - handshake.ready_ms.p50 <= 190\n", Self.run(ready: ["esp-01": 200, "nano-01": 180]))
        #expect(breached.map(\.decision) == [.breached])
    }

    @Test("profile and board scopes look only at their boards; a profile that does not measure a metric is left out")
    func scopes() async throws {
        let run = Self.run(ready: ["esp-01": 200, "esp-02": 300, "nano-01": 180])
        let verdicts = try await Self.judge(
            """
            gates:
              - {gate: handshake.ready_ms.p50 <= 250, board: esp-01}
              - {gate: handshake.ready_ms.p50 <= 250, board: esp-02}
              - {gate: handshake.ready_ms.p50 <= 190, profile: nano33-ble-sense}
              - {gate: handshake.ready_ms.p50 <= 190, profile: hrm}
              - ota.success_rate.first_try >= 99%
            """, run)
        #expect(verdicts.map(\.decision) == [.held, .breached, .held, .notEnoughData, .held])
        #expect(verdicts.map(\.scope) == ["board esp-01", "board esp-02", "profile nano33-ble-sense", "profile hrm", "rig"])
    }

    static func samples(_ count: Int, median: Double, seed: UInt64) -> [Double] {
        var random = SeededRandom(seed: seed)
        return (0..<count).map { _ in median * exp(0.1 * SyntheticRuns.normal(&random)) }
    }

    static let regression = "gates:\n  - {regression: handshake.ready_ms, max_increase: 10%, min_effect_ms: 5}\n"

    @Test("a regression gate: the same run is held against itself, a 20 % slower one breached")
    func regression() async throws {
        let base = Self.run(
            ready: [:],
            samples: ["esp-01": Self.samples(30, median: 200, seed: 1), "nano-01": Self.samples(30, median: 150, seed: 2)])
        let baseline = RunBaseline(name: "run A", run: base)
        let same = try await Self.judge(Self.regression, base, baseline: baseline)
        #expect(same.map(\.decision) == [.held])
        #expect(same[0].message.contains("against run A (2 board(s))"))
        let slower = Self.run(
            ready: [:],
            samples: [
                "esp-01": Self.samples(30, median: 200, seed: 3).map { $0 * 1.2 },
                "nano-01": Self.samples(30, median: 150, seed: 4),
            ])
        let verdicts = try await Self.judge(Self.regression, slower, baseline: baseline)
        #expect(verdicts.map(\.decision) == [.breached])
        #expect(verdicts[0].message.hasPrefix("esp-01: p50 "))
        #expect(verdicts[0].details.contains("nano-01: held"))
        #expect(verdicts[0].details.contains("α 0.01 over 2 board(s) = 0.005 each"))
        let measured = try #require(verdicts[0].measured)
        let baselineValue = try #require(verdicts[0].baseline)
        #expect(measured > baselineValue * 1.1)
    }

    @Test("a regression gate without a baseline, or with too few samples, is not enough data")
    func regressionWithoutData() async throws {
        let run = Self.run(ready: [:], samples: ["esp-01": Self.samples(30, median: 200, seed: 1)])
        let none = try await Self.judge(Self.regression, run)
        #expect(none.map(\.decision) == [.notEnoughData])
        #expect(none[0].message.hasPrefix("no baseline to compare handshake.ready_ms.p50 with"))
        let short = Self.run(ready: [:], samples: ["esp-01": Self.samples(10, median: 200, seed: 1)])
        let verdicts = try await Self.judge(Self.regression, run, baseline: RunBaseline(name: "short", run: short))
        #expect(verdicts.map(\.decision) == [.notEnoughData])
        #expect(verdicts[0].details.contains("esp-01: 30 sample(s) in the run, 10 in the baseline (min_samples 20)"))
        // A board the baseline does not have at all is not enough data either.
        let other = Self.run(ready: [:], samples: ["esp-02": Self.samples(30, median: 200, seed: 1)])
        let missing = try await Self.judge(Self.regression, run, baseline: RunBaseline(name: "other", run: other))
        #expect(missing.map(\.decision) == [.notEnoughData])
    }

    @Test("gates.json round-trips and counts the decisions")
    func report() async throws {
        let verdicts = try await Self.judge(
            "gates:\n  - handshake.ready_ms.p50 <= 250\n  - handshake.ready_ms.p50 <= 150\n  - a.b.p50 < 1\n",
            Self.run(ready: ["esp-01": 200, "esp-02": 240, "nano-01": 180]))
        let report = GateReport(file: "gates.yaml", baseline: nil, verdicts: verdicts)
        #expect((report.held, report.breached, report.notEnoughData) == (1, 1, 1))
        let decoded = try GateReport.decode(json: Data(report.json().utf8))
        #expect(decoded == report)
        #expect(report.text.split(separator: "\n").allSatisfy { $0.count <= 100 })
        #expect(report.text.hasPrefix("gates (gates.yaml): 1 held, 1 breached, 1 not enough data\n"))
    }
}
