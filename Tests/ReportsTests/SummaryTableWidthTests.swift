import BLECore
import Testing

@testable import Reports

@Suite("summary table width")
struct SummaryTableWidthTests {
    @Test("a key number longer than the column is broken over lines within the width, not a trap")
    func longKeyNumber() {
        let metric = "notify." + String(repeating: "very_long_metric_name_", count: 8)
        let result = RunResult([
            .boardStarted(.init(board: "esp-01", profile: "esp-point", identity: [], at: .origin)),
            .testStarted(.init(board: "esp-01", suite: "s", test: "t", at: .origin)),
            .testFinished(
                .init(
                    board: "esp-01", suite: "s", test: "t", started: .origin, duration: .milliseconds(1),
                    outcome: .passed,
                    measurements: [
                        MeasuredValue(metric: metric, statistic: .value, value: 1, unit: .count, definition: "d"),
                        MeasuredValue(metric: "b", statistic: .value, value: 2, unit: .count, definition: "d"),
                    ])),
        ])
        let table = result.summaryTable(keyStatistics: [.value], metrics: [metric, "b"], width: 100)
        #expect(table.split(separator: "\n").allSatisfy { $0.count <= 100 }, "\(table)")
        #expect(table.contains("notify.very_long_metric_name_"))
        #expect(table.contains("b value 2"))
    }
}
