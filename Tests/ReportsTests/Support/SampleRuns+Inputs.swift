import Foundation
import Reports

extension SampleRuns {
    /// Gates, a baseline and trends as the gates and history parts of blerig would give them.
    static var inputs: ReportInputs {
        let day = 86_400.0
        let dates = (0..<8).map { Date(timeIntervalSince1970: 1_795_000_000 + Double($0) * day) }
        let values = [33.1, 34.0, 32.8, 35.2, 34.9, 33.7, 36.4, 35.81]
        let points = zip(zip(dates, values), 1...).map { pair, index in
            MetricTrend.Point(runID: "run-\(index)", date: pair.0, value: pair.1)
        }
        return ReportInputs(
            gates: [
                GateVerdict(
                    gate: "handshake.connect_ms.p50 <= 40", scope: "rig", kind: .absolute, decision: .held,
                    measured: 35.81, message: "35.81 ms <= 40 ms"),
                GateVerdict(
                    gate: "link.drop_rate.value <= 0.5", scope: "board esp-01", kind: .absolute, decision: .breached,
                    measured: 3.1, message: "3.1 /h > 0.5 /h"),
                GateVerdict(
                    gate: "handshake.connect_ms regression 10 %", scope: "profile esp-point", kind: .regression,
                    decision: .notEnoughData, message: "12 baseline samples; at least 30 needed"),
            ],
            baseline: Baseline(
                name: "main", runID: "run-4",
                values: [
                    .init(board: "esp-01", metric: "handshake.connect_ms", statistic: .p50): 35.2,
                    .init(board: "esp-01", metric: "ota.throughput_kBps", statistic: .value): 44.0,
                    .init(board: "nano-01", metric: "handshake.connect_ms", statistic: .p95): 31.25,
                    .init(board: "gone-01", metric: "handshake.connect_ms", statistic: .p50): 1,
                ]),
            trends: [
                MetricTrend(
                    board: "esp-01", metric: "handshake.connect_ms", statistic: .p50, unit: .milliseconds,
                    points: points, baselineRunID: "run-4"),
                MetricTrend(
                    board: "esp-01", metric: "ota.throughput_kBps", statistic: .value, unit: .kilobytesPerSecond,
                    points: points.map { .init(runID: $0.runID, date: $0.date, value: $0.value + 8) }),
            ])
    }
}
