import Foundation
import Testing

@testable import Reports

@Suite("metrics.prom: OpenMetrics in base units that prometheus_client accepts")
struct OpenMetricsTests {
    static let runs: [(String, [RunEvent])] = [
        ("verdicts", SampleRuns.verdicts), ("bench", SampleRuns.bench), ("nasty", SampleRuns.nasty),
        ("bench did not open", SampleRuns.benchDidNotOpen),
    ]

    @Test("prometheus_client's OpenMetrics parser accepts every run, and its Prometheus text parser the push form",
        arguments: runs)
    func parses(name: String, events: [RunEvent]) async throws {
        let result = RunResult(events)
        let text = OpenMetricsWriter().render(result)
        #expect(text.hasSuffix("# EOF\n"))
        if case .failure(let failure) = try await MetricsParser.parse(text, format: "openmetrics") {
            Issue.record("\(name): OpenMetrics refused: \(failure.message)")
        }
        let pushed = OpenMetricsWriter().render(result, format: .prometheusText)
        if case .failure(let failure) = try await MetricsParser.parse(pushed, format: "prometheus") {
            Issue.record("\(name): Prometheus text refused: \(failure.message)")
        }
    }

    @Test("the parser has teeth: a unit that is not the name's suffix and a missing # EOF are refused")
    func parserHasTeeth() async throws {
        let good = OpenMetricsWriter().render(RunResult(SampleRuns.verdicts))
        for bad in [
            good.replacingOccurrences(of: "# EOF\n", with: ""),
            good.replacingOccurrences(of: "# UNIT blerig_run_wall_seconds seconds", with: "# UNIT blerig_run_wall_seconds ms"),
        ] {
            guard case .failure = try await MetricsParser.parse(bad, format: "openmetrics") else {
                Issue.record("a broken exposition was accepted")
                continue
            }
        }
    }

    @Test("latency samples become a histogram in seconds with cumulative buckets, _count and _sum")
    func histogram() async throws {
        guard case .success(let families) = try await MetricsParser.parse(
            OpenMetricsWriter().render(RunResult(SampleRuns.verdicts)), format: "openmetrics")
        else {
            Issue.record("refused")
            return
        }
        let family = try #require(families.first { $0.name == "blerig_handshake_connect_seconds" })
        #expect(family.type == "histogram")
        #expect(family.unit == "seconds")
        let esp = family.samples.filter { $0.labels["board"] == "esp-01" }
        let buckets = esp.filter { $0.name.hasSuffix("_bucket") }
        #expect(zip(buckets, buckets.dropFirst()).allSatisfy { $0.value <= $1.value }, "not cumulative")
        let atMost = { (ms: Double) in Double(SampleRuns.connectSamples.filter { $0 / 1000 <= ms / 1000 }.count) }
        #expect(buckets.first { $0.labels["le"] == "0.02" }?.value == atMost(20))
        #expect(buckets.first { $0.labels["le"] == "0.05" }?.value == atMost(50))
        #expect(buckets.first { $0.labels["le"] == "0.1" }?.value == 200)
        #expect(buckets.last?.labels["le"] == "+Inf")
        #expect(esp.first { $0.name.hasSuffix("_count") }?.value == 200)
        let sum = try #require(esp.first { $0.name.hasSuffix("_sum") }?.value)
        let expected = SampleRuns.connectSamples.reduce(0, +) / 1000
        #expect(abs(sum - expected) < 1e-9)
        // nano-01 has no samples: its percentiles are gauges in seconds.
        let p95 = try #require(families.first { $0.name == "blerig_handshake_connect_p95_seconds" })
        #expect(p95.samples.first { $0.labels["board"] == "nano-01" }?.value == 0.03125)
        #expect(!p95.samples.contains { $0.labels["board"] == "esp-01" })
    }

    @Test("rates, throughput and ratios in base units; drops by reason as a label; counters end in _total")
    func baseUnits() async throws {
        guard case .success(let families) = try await MetricsParser.parse(
            OpenMetricsWriter().render(RunResult(SampleRuns.verdicts)), format: "openmetrics")
        else {
            Issue.record("refused")
            return
        }
        func value(_ family: String, _ labels: [String: String] = [:]) -> Double? {
            families.first { $0.name == family }?.samples.first { sample in
                labels.allSatisfy { sample.labels[$0.key] == $0.value }
            }?.value
        }
        #expect(abs((value("blerig_ota_throughput_bytes_per_second") ?? 0) - 41_234.567) < 1e-6)
        #expect(value("blerig_ota_efficiency_ratio") == 0.2371)
        #expect(abs((value("blerig_link_drop_rate_per_second") ?? 0) - 3.1 / 3600) < 1e-12)
        #expect(abs((value("blerig_link_drop_rate_by_reason_per_second", ["reason": "0x08"]) ?? 0) - 2.4 / 3600) < 1e-12)
        let checks = try #require(families.first { $0.name == "blerig_checks" })
        #expect(checks.type == "counter")
        #expect(checks.samples.allSatisfy { $0.name == "blerig_checks_total" })
        #expect(value("blerig_checks", ["board": "esp-01", "status": "passed"]) == 2)
        #expect(value("blerig_non_passes", ["board": "esp-01", "class": "test"]) == 1)
        #expect(value("blerig_flaky_checks", ["board": "esp-01"]) == 1)
    }

    @Test("board-supplied strings in labels and help are escaped, and still parse")
    func escaping() async throws {
        let text = OpenMetricsWriter().render(RunResult(SampleRuns.nasty))
        guard case .success(let families) = try await MetricsParser.parse(text, format: "openmetrics") else {
            Issue.record("refused")
            return
        }
        let boards = Set(families.flatMap { $0.samples.compactMap { $0.labels["board"] } })
        #expect(boards.contains { $0.contains("\"quoted\"") })
    }
}
