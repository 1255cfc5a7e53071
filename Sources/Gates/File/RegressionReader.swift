import Orchestrator

/// Reads a regression gate's mapping:
///
/// ```yaml
/// - regression: handshake.ready_ms   # the metric (or handshake.ready_ms.p95: the statistic with it)
///   statistic: p50                   # the quantile compared: p50 (default), median, p95, p99, pNN
///   max_increase: 10%                # or max_decrease: 10% for metrics where smaller is worse
///   min_effect_ms: 5                 # or min_effect_s, or min_effect in the metric's unit; default 0
///   min_samples: 20                  # per board and side; default 20
///   test: mann-whitney               # mann-whitney (default), bootstrap or both
///   alpha: 0.01                      # default 0.01
///   resamples: 2000                  # bootstrap only; default 2000
///   seed: 1                          # bootstrap only; default 1
/// ```
enum RegressionReader {
    static func decode(_ reader: inout RigMappingReader) -> RegressionLimit? {
        let diagnostics = reader.diagnostics
        let named = reader.string("regression", required: true)
        let statisticNode = reader.value("statistic")
        var metric = named
        var quantile = 0.5
        if let named, !MetricName.isMetric(named) {
            diagnostics.record(
                .invalidValue,
                "\(RigWording.quoted(named)) is not a metric name (expected dotted words such as handshake.ready_ms)",
                at: reader.node["regression"]!.location)
            metric = nil
        } else if let named, let (base, statistic) = MetricName.split(named), let q = percentile(statistic) {
            // `regression: handshake.ready_ms.p95` names the statistic with the metric.
            if let statisticNode {
                diagnostics.record(
                    .conflict, "the statistic is given twice: in 'regression' (\(statistic)) and in 'statistic'",
                    at: statisticNode.location)
            }
            metric = base
            quantile = q
        }
        if let statisticNode {
            if let text = statisticNode.scalar?.text, let q = percentile(text) {
                quantile = q
            } else {
                diagnostics.record(
                    .invalidValue,
                    "'statistic' must be a percentile: p50 (the median), p95, p99 or pNN, found \(statisticNode.summary)",
                    at: statisticNode.location)
            }
        }
        let increase = reader.read("max_increase") { node throws(RigFileIssue) in try percentage(node, "max_increase", upTo: 100) }
        let decrease = reader.read("max_decrease") { node throws(RigFileIssue) in try percentage(node, "max_decrease", upTo: 1) }
        let direction: RegressionLimit.Direction
        let maxChange: Double
        switch (increase, decrease) {
        case (let increase?, nil):
            (direction, maxChange) = (.increase, increase)
        case (nil, let decrease?):
            (direction, maxChange) = (.decrease, decrease)
        case (.some, .some):
            diagnostics.record(
                .conflict, "a regression gate has max_increase or max_decrease, not both",
                at: reader.keyLocation("max_decrease")!)
            return nil
        case (nil, nil):
            if reader.keyLocation("max_increase") == nil, reader.keyLocation("max_decrease") == nil {
                diagnostics.record(
                    .missingKey,
                    "a regression gate needs max_increase (larger is worse, such as latency) or max_decrease "
                        + "(smaller is worse, such as throughput), as a percentage: max_increase: 10%",
                    at: reader.node.location)
            }
            return nil
        }
        let minEffect = readMinEffect(&reader, metric: metric)
        let minSamples = reader.integer("min_samples", in: 2...10_000_000) ?? 20
        let test = reader.choice("test", noun: "test", RegressionLimit.Test.self) ?? .mannWhitney
        let alpha = reader.number("alpha", in: 1e-9...0.5) ?? 0.01
        let resamples = reader.integer("resamples", in: 100...1_000_000) ?? 2_000
        let seed = reader.integer("seed", in: UInt64.min...UInt64.max) ?? 1
        guard let metric, let minEffect else { return nil }
        return RegressionLimit(
            metric: metric, quantile: quantile, direction: direction, maxChange: maxChange, minEffect: minEffect,
            minSamples: minSamples, test: test, alpha: alpha, resamples: resamples, seed: seed)
    }

    /// `p50` → 0.5, `median` → 0.5, `p99.9` → 0.999; nil for anything else.
    static func percentile(_ text: String) -> Double? {
        if text == "median" { return 0.5 }
        guard text.hasPrefix("p"), let value = LimitNumber.number(String(text.dropFirst())), value > 0, value < 100
        else { return nil }
        return value / 100
    }

    /// `10%` as 0.1, at most `upTo` (as a fraction).
    static func percentage(_ node: RigNode, _ key: String, upTo: Double) throws(RigFileIssue) -> Double {
        guard let scalar = node.scalar, scalar.text.hasSuffix("%"), let value = LimitNumber.parse(scalar.text) else {
            throw node.issue(
                .wrongType, "'\(key)' must be a percentage such as 10%, found \(node.summary)")
        }
        guard value >= 0, value <= upTo else {
            throw node.issue(
                .outOfRange,
                "'\(key)' must be between 0% and \(GateNumber.text(upTo * 100))%, found \(RigWording.quoted(scalar.text))")
        }
        return value
    }

    /// `min_effect` in the metric's unit, or `min_effect_ms` / `min_effect_s` converted to a metric named in ms
    /// or s; 0 when none is written; nil after recording a problem.
    static func readMinEffect(_ reader: inout RigMappingReader, metric: String?) -> Double? {
        var written: [(key: String, value: Double, seconds: Double?)] = []
        for (key, seconds) in [("min_effect", nil), ("min_effect_ms", 0.001), ("min_effect_s", 1.0)] as [(String, Double?)] {
            let unit = seconds == nil ? "" : (seconds == 1 ? "s" : "ms")
            if let value = reader.number(key, in: 0...1e15, unit: unit) { written.append((key, value, seconds)) }
        }
        guard written.count <= 1 else {
            reader.diagnostics.record(
                .conflict, "write one of min_effect, min_effect_ms and min_effect_s, not several",
                at: reader.keyLocation(written[1].key)!)
            return nil
        }
        guard let effect = written.first else { return 0 }
        guard let seconds = effect.seconds else { return effect.value }
        guard let metric else { return nil }
        guard let metricSeconds = MetricName.timeUnitSeconds(metric) else {
            reader.diagnostics.record(
                .invalidValue,
                "\(effect.key) needs a metric measured in ms or s (a name ending in _ms or _s); \(metric) is not: "
                    + "write min_effect in its own unit",
                at: reader.keyLocation(effect.key)!)
            return nil
        }
        return effect.value * seconds / metricSeconds
    }
}
