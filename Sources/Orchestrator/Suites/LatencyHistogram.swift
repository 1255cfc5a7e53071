import BLECore
import Histogram
import Reports

/// Latencies of one metric in an HdrHistogram (microsecond resolution, three significant digits), reported as
/// p50/p95/p99/max and count in milliseconds. Each latency is also kept as a raw sample of the check running in
/// the task that records it (``CheckRecorder/record(_:unit:values:)``), for regression gates and history.
struct LatencyHistogram {
    let metric: String
    let definition: String
    private var histogram = Histogram<UInt64>(
        highestTrackableValue: 3_600_000_000, numberOfSignificantValueDigits: .three)

    init(metric: String, definition: String) {
        self.metric = metric
        self.definition = definition
    }

    mutating func record(_ duration: Duration) {
        CheckRecorder.record(metric, unit: .milliseconds, values: [duration.milliseconds])
        let microseconds = UInt64(max(0, (duration.milliseconds * 1_000).rounded()))
        _ = histogram.record(min(microseconds, 3_600_000_000))
    }

    var count: UInt64 { histogram.totalCount }

    func percentile(_ p: Double) -> Double { Double(histogram.valueAtPercentile(p)) / 1_000 }

    var measurements: [MeasuredValue] {
        guard count > 0 else {
            return [MeasuredValue(metric: metric, statistic: .count, value: 0, unit: .count, definition: definition)]
        }
        return [
            MeasuredValue(
                metric: metric, statistic: .p50, value: percentile(50), unit: .milliseconds, definition: definition),
            MeasuredValue(
                metric: metric, statistic: .p95, value: percentile(95), unit: .milliseconds, definition: definition),
            MeasuredValue(
                metric: metric, statistic: .p99, value: percentile(99), unit: .milliseconds, definition: definition),
            MeasuredValue(
                metric: metric, statistic: .max, value: Double(histogram.max) / 1_000, unit: .milliseconds,
                definition: definition),
            MeasuredValue(
                metric: metric, statistic: .count, value: Double(count), unit: .count, definition: definition),
        ]
    }
}
