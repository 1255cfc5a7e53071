/// The raw samples behind a metric's statistics, kept so that a later run can be compared with this one by a
/// statistical test rather than by its percentiles alone (history and regression gates read them).
public struct MetricSamples: Codable, Sendable, Hashable {
    /// The metric, as in ``MeasuredValue/metric``.
    public var metric: String
    public var unit: MetricUnit
    /// The samples in the order they were taken, in ``unit``.
    public var values: [Double]

    public init(metric: String, unit: MetricUnit, values: [Double]) {
        self.metric = metric
        self.unit = unit
        self.values = values
    }
}
