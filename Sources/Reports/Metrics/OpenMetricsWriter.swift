/// Writes a run's numbers as OpenMetrics text (`metrics.prom`), for Prometheus, a Pushgateway or anything that
/// reads the exposition format. Numbers are in base units (see ``BaseUnit``): `blerig_handshake_connect_seconds`,
/// not milliseconds.
///
/// Families:
/// - `blerig_run_info{run_id,rig,radio,host[,seed]} 1`, `blerig_run_wall_seconds`, `blerig_run_bench_seconds`
///   (the rig clock at the end: virtual time on the virtual farm).
/// - counters per board: `blerig_checks_total{board,profile,status}` (every status, zeros included, so series do
///   not come and go), `blerig_non_passes_total{board,profile,class}`, `blerig_flaky_checks_total{board,profile}`.
/// - per check's metric, labelled `{board,profile,suite,check}`: a histogram from the check's raw samples
///   (`_bucket{le=…}` cumulative over fixed 1-2-5 bounds from 1e-4 to 1e5, `_count`, `_sum`), else gauges for
///   its statistics: `value` as `blerig_<metric>_<unit>` (`blerig_<metric>_value_<unit>` where the metric has a
///   histogram), a percentile as `blerig_<metric>_<p95>_<unit>`, `count` as `blerig_<metric>_samples`, an HCI
///   reason breakdown `reason_0x08` as `blerig_<metric>_by_reason_<unit>{…,reason="0x08"}`.
///   A statistic the histogram already gives (percentiles, count) is not repeated as a gauge.
/// - `# HELP` is the metric's definition; `# UNIT` its base unit; the text ends with `# EOF`.
///
/// The same families render as Prometheus text 0.0.4 (``Format/prometheusText``) for a Pushgateway, which reads
/// no OpenMetrics.
public struct OpenMetricsWriter: Sendable {
    public enum Format: Sendable {
        case openMetrics
        case prometheusText

        /// The HTTP `Content-Type` of the format.
        public var contentType: String {
            switch self {
            case .openMetrics: "application/openmetrics-text; version=1.0.0; charset=utf-8"
            case .prometheusText: "text/plain; version=0.0.4; charset=utf-8"
            }
        }
    }

    public init() {}

    /// Histogram bucket upper bounds, in base units: 1, 2, 5 per decade from 1e-4 to 1e5. Fixed, so series from
    /// different runs and boards aggregate.
    static let bucketBounds: [Double] = (-4...4).flatMap { exponent in
        [1.0, 2, 5].map { $0 * pow10(exponent) }
    } + [pow10(5)]

    public func render(_ result: RunResult, format: Format = .openMetrics) -> String {
        Self.text(families(result), format: format)
    }

    func families(_ result: RunResult) -> [MetricFamily] {
        var builder = FamilyBuilder()
        if let run = result.run {
            var labels = [("run_id", run.runID), ("rig", run.rig), ("radio", run.radio), ("host", run.host)]
            if let seed = run.seed { labels.append(("seed", String(seed))) }
            builder.add(
                "blerig_run_info", .gauge, unit: nil, help: "the run: its id, rig, radio and host", labels, 1)
        }
        if let finished = result.finished {
            builder.add(
                "blerig_run_wall_seconds", .gauge, unit: "seconds", help: "the run's wall-clock duration", [],
                finished.wallDuration.seconds)
            builder.add(
                "blerig_run_bench_seconds", .gauge, unit: "seconds",
                help: "the rig clock when the run ended (virtual time on the virtual farm)", [], finished.at.sinceOrigin.seconds)
        }
        for board in result.boards { counters(board, into: &builder) }
        let sampled = Set(result.boards.flatMap { $0.tests.flatMap { $0.samples.map(\.metric) } })
        for board in result.boards {
            let profile = board.profile ?? ""
            let boardLabels = [("board", board.id), ("profile", profile), ("suite", ""), ("check", "")]
            numbers(board.measurements, samples: [], labels: boardLabels, sampled: sampled, into: &builder)
            for test in board.tests {
                let labels = [("board", board.id), ("profile", profile), ("suite", test.suite), ("check", test.name)]
                numbers(test.measurements, samples: test.samples, labels: labels, sampled: sampled, into: &builder)
            }
        }
        return builder.families
    }

    private func counters(_ board: BoardResult, into builder: inout FamilyBuilder) {
        let profile = board.profile ?? ""
        let counts = board.counts
        let statuses = [
            ("passed", counts.passed), ("failed", counts.failed), ("error", counts.errors - counts.interrupted),
            ("interrupted", counts.interrupted), ("skipped", counts.skipped),
        ]
        for (status, count) in statuses {
            builder.add(
                "blerig_checks", .counter, unit: nil, help: "checks by how their last attempt ended",
                [("board", board.id), ("profile", profile), ("status", status)], Double(count))
        }
        for kind in FailureClass.allCases.map(\.rawValue) + ["interrupted", "unclassified"] {
            let count = board.tests.filter { $0.classLabel == kind }.count
            builder.add(
                "blerig_non_passes", .counter, unit: nil,
                help: "checks that did not pass, by whose fault: test (product), board, infrastructure (bench); "
                    + "interrupted (stopped with the run) and unclassified (an error no one classified)",
                [("board", board.id), ("profile", profile), ("class", kind)], Double(count))
        }
        builder.add(
            "blerig_flaky_checks", .counter, unit: nil, help: "checks that passed on a later attempt after not passing",
            [("board", board.id), ("profile", profile)], Double(board.tests.filter(\.isFlaky).count))
    }

    private func numbers(
        _ values: [MeasuredValue], samples: [MetricSamples], labels: [(String, String)], sampled: Set<String>,
        into builder: inout FamilyBuilder
    ) {
        var histogramMetrics: Set<String> = []
        for set in samples where !set.values.isEmpty {
            let base = BaseUnit(set.unit)
            let name = BaseUnit.name(metric: set.metric, unit: base.unit)
            let definition = values.first { $0.metric == set.metric }?.definition ?? set.metric
            builder.histogram(
                name, unit: base.unit, help: Self.help(definition, set.unit, base), labels,
                values: set.values.map { $0 * base.factor })
            histogramMetrics.insert(set.metric)
        }
        for value in values {
            let base = BaseUnit(value.unit)
            let statistic = value.statistic.rawValue
            let help = Self.help(value.definition, value.unit, base)
            let histogram = histogramMetrics.contains(value.metric)
            var labels = labels
            let name: String
            switch value.statistic {
            case .value:
                name = BaseUnit.name(
                    metric: value.metric, part: sampled.contains(value.metric) ? "value" : nil, unit: base.unit)
            case .count:
                guard !histogram else { continue }
                name = BaseUnit.name(metric: value.metric, part: "samples", unit: nil)
                builder.add(name, .gauge, unit: nil, help: help, labels, value.value)
                continue
            case .p50, .p95, .p99, .min, .max, .mean:
                guard !histogram else { continue }
                name = BaseUnit.name(metric: value.metric, part: statistic, unit: base.unit)
            default:
                if statistic.hasPrefix("reason_") {
                    labels.append(("reason", String(statistic.dropFirst("reason_".count))))
                    name = BaseUnit.name(metric: value.metric, part: "by_reason", unit: base.unit)
                } else {
                    name = BaseUnit.name(metric: value.metric, part: statistic, unit: base.unit)
                }
            }
            builder.add(name, .gauge, unit: base.unit, help: help, labels, value.value * base.factor)
        }
    }

    /// The definition, and the unit blerig measured in when the exposition's differs.
    private static func help(_ definition: String, _ unit: MetricUnit, _ base: BaseUnit) -> String {
        guard !unit.rawValue.isEmpty else { return definition }
        if base.unit == nil { return "\(definition) (in \(unit.rawValue))" }
        return base.factor == 1 ? definition : "\(definition) (measured in \(unit.rawValue))"
    }

    private static func pow10(_ exponent: Int) -> Double {
        var value = 1.0
        if exponent >= 0 { for _ in 0..<exponent { value *= 10 } } else { for _ in 0..<(-exponent) { value /= 10 } }
        return value
    }
}

extension TestOutcome {
    /// Failed, error or interrupted.
    var isNonPass: Bool {
        switch self {
        case .passed, .skipped: false
        case .failed, .error, .interrupted: true
        }
    }
}

extension TestResult {
    /// Whose fault a non-pass is, as reports label it: the class; for a non-pass without one, `test` for a
    /// failure, `interrupted` for an interrupted check, `unclassified` for an error; nil for a pass or a skip.
    var classLabel: String? {
        guard outcome.isNonPass else { return nil }
        if let failureClass { return failureClass.rawValue }
        switch outcome {
        case .failed: return FailureClass.test.rawValue
        case .interrupted: return "interrupted"
        default: return "unclassified"
        }
    }
}
