import Foundation

/// Two stored runs side by side, per board, check and metric: both runs' values of each statistic, the change,
/// and the statistical verdict on the raw samples. `blerig compare A B` prints it.
public struct RunComparison: Sendable {
    public var a: RunRecord
    public var b: RunRecord
    public var metrics: [MetricComparison]

    /// One metric of one check on one board, in both runs.
    public struct MetricComparison: Sendable, Hashable, Codable {
        public var board: String
        /// `suite/test`, or empty for a board-level number.
        public var check: String
        public var metric: String
        public var unit: String
        public var statistics: [StatisticComparison]
        /// How many raw samples each run kept of the metric (0 when it kept none).
        public var samplesA: Int
        public var samplesB: Int
        /// The statistical test's answer on the raw samples; nil until a ``ChangeJudge`` is given.
        public var verdict: String?
    }

    public struct StatisticComparison: Sendable, Hashable, Codable {
        public var statistic: String
        /// nil where the run has no such value.
        public var a: Double?
        public var b: Double?

        /// `b - a`; nil unless both are there.
        public var change: Double? { a.flatMap { a in b.map { $0 - a } } }

        /// The change as a fraction of `a`; nil when `a` is 0 or either is missing.
        public var relativeChange: Double? {
            guard let a, let change, a != 0 else { return nil }
            return change / abs(a)
        }
    }

    /// Loads runs `a` and `b` (run ids or baseline names) from `history`, optionally of one board and metric,
    /// and judges each metric's samples with `judge` when given.
    public static func load(
        _ history: any RunHistory, a nameA: String, b nameB: String, board: String? = nil, metric: String? = nil,
        judge: (any ChangeJudge)? = nil
    ) async throws(HistoryError) -> RunComparison {
        let a = try await history.resolve(nameA)
        let b = try await history.resolve(nameB)
        let valuesA = try await history.values(run: a.runID, board: board, metric: metric)
        let valuesB = try await history.values(run: b.runID, board: board, metric: metric)
        let samplesA = try await history.samples(run: a.runID, board: board, metric: metric)
        let samplesB = try await history.samples(run: b.runID, board: board, metric: metric)

        struct Key: Hashable {
            var board, check, metric, unit: String
        }
        func key(_ value: ValueRecord) -> Key {
            Key(
                board: value.board, check: value.suite.isEmpty ? "" : "\(value.suite)/\(value.test)",
                metric: value.metric, unit: value.unit)
        }
        func sampleKey(_ samples: SamplesRecord) -> Key {
            Key(
                board: samples.board, check: "\(samples.suite)/\(samples.test)", metric: samples.metric,
                unit: samples.unit)
        }
        var order: [Key] = []
        var statistics: [Key: [(statistic: String, a: Double?, b: Double?)]] = [:]
        for (side, values) in [(0, valuesA), (1, valuesB)] {
            for value in values {
                let k = key(value)
                if statistics[k] == nil { order.append(k) }
                var list = statistics[k, default: []]
                let index =
                    list.firstIndex { $0.statistic == value.statistic }
                    ?? {
                        list.append((value.statistic, nil, nil))
                        return list.count - 1
                    }()
                if side == 0 { list[index].a = value.value } else { list[index].b = value.value }
                statistics[k] = list
            }
        }
        var rawA: [Key: [Double]] = [:]
        var rawB: [Key: [Double]] = [:]
        for samples in samplesA { rawA[sampleKey(samples), default: []] += samples.values }
        for samples in samplesB { rawB[sampleKey(samples), default: []] += samples.values }
        let metrics = order.map { k in
            let baseline = rawA[k] ?? []
            let candidate = rawB[k] ?? []
            return MetricComparison(
                board: k.board, check: k.check, metric: k.metric, unit: k.unit,
                statistics: (statistics[k] ?? []).map {
                    StatisticComparison(statistic: $0.statistic, a: $0.a, b: $0.b)
                },
                samplesA: baseline.count, samplesB: candidate.count,
                verdict: judge?.judge(metric: k.metric, baseline: baseline, candidate: candidate))
        }
        return RunComparison(a: a, b: b, metrics: metrics)
    }
}

/// The statistical verdict on a metric's change between two runs' raw samples (a Mann-Whitney U test or a
/// bootstrap interval, with a minimum effect size and sample count): `held`, `breached`/`changed`, or `not
/// enough data`, with its evidence in one line.
///
/// VERDICT HOOK: the regression test itself belongs to the gates (the `Gates` target); `blerig compare` passes
/// its judge here once it is merged. Until then comparisons carry no verdict and say so.
public protocol ChangeJudge: Sendable {
    func judge(metric: String, baseline: [Double], candidate: [Double]) -> String
}
