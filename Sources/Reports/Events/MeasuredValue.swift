/// One number a test measured: which metric, which statistic of it, the value and unit, and the definition of
/// what was timed or counted. Metric names are the ones in docs/architecture.md ("Metrics"), such as
/// `handshake.connect_ms`; reports, gates and history all key on them. No number without its definition.
public struct MeasuredValue: Codable, Sendable, Hashable {
    /// The metric, e.g. `handshake.ready_ms`, `ota.throughput_kBps`, `link.drop_rate`.
    public var metric: String
    /// Which statistic of the metric's samples this is: ``Statistic/p95``, ``Statistic/count``, ...
    public var statistic: Statistic
    public var value: Double
    public var unit: MetricUnit
    /// The span that was timed or the quantity that was counted, e.g. "connect request → link up".
    public var definition: String

    public init(metric: String, statistic: Statistic, value: Double, unit: MetricUnit, definition: String) {
        self.metric = metric
        self.statistic = statistic
        self.value = value
        self.unit = unit
        self.definition = definition
    }

    /// The statistic, value and unit as people read them: `p95 212.4 ms`, `count 200`.
    public var reading: String {
        let number = NumberText.human(value)
        return unit.rawValue.isEmpty
            ? "\(statistic.rawValue) \(number)" : "\(statistic.rawValue) \(number) \(unit.rawValue)"
    }

    /// `values` grouped by metric, metrics in the order they first appear, values in their order.
    static func groupedByMetric(_ values: [MeasuredValue]) -> [(metric: String, values: [MeasuredValue])] {
        var groups: [(metric: String, values: [MeasuredValue])] = []
        var index: [String: Int] = [:]
        for value in values {
            if let known = index[value.metric] {
                groups[known].values.append(value)
            } else {
                index[value.metric] = groups.count
                groups.append((value.metric, [value]))
            }
        }
        return groups
    }
}

/// Which statistic of a metric's samples a ``MeasuredValue`` carries. Percentiles come from an HdrHistogram.
public struct Statistic: RawRepresentable, Codable, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }

    public static let p50 = Self("p50")
    public static let p95 = Self("p95")
    public static let p99 = Self("p99")
    public static let min = Self("min")
    public static let max = Self("max")
    public static let mean = Self("mean")
    /// How many samples the other statistics summarise.
    public static let count = Self("count")
    /// A single measured value that is not a summary of samples (a rate, a total, a duration).
    public static let value = Self("value")

    public var description: String { rawValue }
}

/// The unit of a ``MeasuredValue``, written as reports print it after the number. Empty for plain counts.
public struct MetricUnit: RawRepresentable, Codable, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }

    public static let milliseconds = Self("ms")
    public static let seconds = Self("s")
    public static let kilobytesPerSecond = Self("kB/s")
    public static let bytes = Self("B")
    /// Events per connection-hour, as `link.drop_rate` is given.
    public static let perHour = Self("/h")
    /// A fraction between 0 and 1 (`ota.success_rate`, `ota.efficiency`).
    public static let ratio = Self("ratio")
    public static let count = Self("")

    public var description: String { rawValue }
}
