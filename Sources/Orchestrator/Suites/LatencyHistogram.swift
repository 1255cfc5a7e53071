import BLECore
import Histogram
import Reports

/// Latencies of one metric as an HdrHistogram reports them (microsecond resolution, three significant digits):
/// p50/p95/p99/max and count in milliseconds. Each latency is also kept as a raw sample of the check running in
/// the task that records it (``CheckRecorder/record(_:unit:values:)``), for regression gates and history.
///
/// A check records a handful of latencies, and a histogram of this range is a 360 kB table whose percentiles are
/// linear scans of it: so up to ``exactLimit`` values are kept as they are and the histogram's figures are worked
/// out from them (the k-th smallest value's highest equivalent, as `valueAtPercentile` returns it); past that they
/// go into a histogram. Both give the same numbers (`LatencyHistogramTests`).
struct LatencyHistogram {
    let metric: String
    let definition: String
    /// Values kept as they are before the histogram takes over.
    let exactLimit: Int
    private var values: [UInt64] = []
    private var histogram: Histogram<UInt64>?

    static let highestTrackable: UInt64 = 3_600_000_000
    static func makeHistogram() -> Histogram<UInt64> {
        Histogram(highestTrackableValue: highestTrackable, numberOfSignificantValueDigits: .three)
    }
    /// For equivalent values only (bucket bounds); nothing is recorded in it.
    private static let scale = makeHistogram()

    init(metric: String, definition: String, exactLimit: Int = 4_096) {
        self.metric = metric
        self.definition = definition
        self.exactLimit = exactLimit
    }

    mutating func record(_ duration: Duration) {
        CheckRecorder.record(metric, unit: .milliseconds, values: [duration.milliseconds])
        record(microseconds: UInt64(max(0, (duration.milliseconds * 1_000).rounded())))
    }

    mutating func record(microseconds: UInt64) {
        let value = min(microseconds, Self.highestTrackable)
        if histogram != nil {
            _ = histogram!.record(value)
            return
        }
        values.append(value)
        if values.count > exactLimit {
            var full = Self.makeHistogram()
            for value in values { _ = full.record(value) }
            histogram = full
            values = []
        }
    }

    var count: UInt64 { histogram?.totalCount ?? UInt64(values.count) }

    /// `valueAtPercentile(p)` in microseconds.
    func percentileMicroseconds(_ p: Double) -> UInt64 {
        if let histogram { return histogram.valueAtPercentile(p) }
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        let (lowest, highest) = (sorted.first!, sorted.last!)
        guard p != 0 else { return lowest }
        guard p < 100 else { return highest }
        let requested = min(max(p.nextDown, 0), 100)
        let rank = max(1, UInt64(((requested * Double(sorted.count)) / 100).rounded(.up)))
        let value = sorted[Int(min(rank, UInt64(sorted.count))) - 1]
        return max(min(Self.scale.highestEquivalentForValue(value), highest), lowest)
    }

    /// The histogram's `max`: the highest value equivalent to the largest recorded, in microseconds.
    var maxMicroseconds: UInt64 {
        if let histogram { return histogram.max }
        guard let highest = values.max(), highest > 0 else { return 0 }
        return Self.scale.highestEquivalentForValue(highest)
    }

    func percentile(_ p: Double) -> Double { Double(percentileMicroseconds(p)) / 1_000 }

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
                metric: metric, statistic: .max, value: Double(maxMicroseconds) / 1_000, unit: .milliseconds,
                definition: definition),
            MeasuredValue(
                metric: metric, statistic: .count, value: Double(count), unit: .count, definition: definition),
        ]
    }
}
