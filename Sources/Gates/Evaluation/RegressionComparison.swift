/// One regression decision on two samples of one metric: the run's and the baseline's, on one board.
///
/// The run *breaches* when both hold:
/// - the test finds the run shifted the bad way at level α (one-sided Mann-Whitney p ≤ α; or the bootstrap's
///   one-sided 1 − α bound of the quantile's shift excludes 0; or both, for `test: both`);
/// - the quantile moved the bad way by more than the allowed change: max(max_change × |baseline's|,
///   min_effect).
///
/// Otherwise it *holds*, unless either side has fewer than `min_samples` values: then there is *not enough
/// data*, whatever the values say. Requiring significance keeps noise from breaching a gate; requiring the
/// effect keeps a tiny but real shift (significant with many samples) from breaching it: the way Pinpoint and
/// Bencher gate.
public struct RegressionComparison: Sendable, Hashable {
    public let decision: Decision
    public let runCount: Int
    public let baselineCount: Int
    /// The compared quantile in the run and in the baseline; nil when either side is empty.
    public let runQuantile: Double?
    public let baselineQuantile: Double?
    /// The one-sided Mann-Whitney test, when it ran.
    public let mannWhitney: MannWhitneyU?
    /// The bootstrap interval of the shift, when it ran.
    public let bootstrap: BootstrapShift?
    /// The largest move of the quantile the gate allows, in the metric's unit.
    public let allowed: Double
    /// The α the test was run at (the gate's, split over the boards compared).
    public let alpha: Double

    public enum Decision: Sendable, Hashable {
        case held
        case breached
        case notEnoughData
    }

    public init(run: [Double], baseline: [Double], limit: RegressionLimit, alpha: Double) {
        runCount = run.count
        baselineCount = baseline.count
        self.alpha = alpha
        runQuantile = run.isEmpty ? nil : Quantile.of(run, limit.quantile)
        baselineQuantile = baseline.isEmpty ? nil : Quantile.of(baseline, limit.quantile)
        allowed = max(limit.maxChange * abs(baselineQuantile ?? 0), limit.minEffect)
        guard let runQuantile, let baselineQuantile, run.count >= limit.minSamples,
            baseline.count >= limit.minSamples
        else {
            decision = .notEnoughData
            mannWhitney = nil
            bootstrap = nil
            return
        }
        let increase = limit.direction == .increase
        var significant = true
        if limit.test != .bootstrap {
            let test = MannWhitneyU(run, baseline, alternative: increase ? .greater : .less)
            mannWhitney = test
            significant = significant && test.pValue <= alpha
        } else {
            mannWhitney = nil
        }
        if limit.test != .mannWhitney {
            let interval = BootstrapShift(
                run, baseline, quantile: limit.quantile, alpha: alpha, resamples: limit.resamples, seed: limit.seed)
            bootstrap = interval
            significant = significant && (increase ? interval.lower > 0 : interval.upper < 0)
        } else {
            bootstrap = nil
        }
        let worse = increase ? runQuantile - baselineQuantile : baselineQuantile - runQuantile
        decision = significant && worse > allowed ? .breached : .held
    }

    /// The quantile's move the bad way (positive is worse), nil without both quantiles.
    public func worsening(_ direction: RegressionLimit.Direction) -> Double? {
        guard let runQuantile, let baselineQuantile else { return nil }
        return direction == .increase ? runQuantile - baselineQuantile : baselineQuantile - runQuantile
    }

    /// The relative change of the quantile, nil without both or with a zero baseline.
    public var change: Double? {
        guard let runQuantile, let baselineQuantile, baselineQuantile != 0 else { return nil }
        return (runQuantile - baselineQuantile) / abs(baselineQuantile)
    }

    /// The evidence on one line: `p=0.0003 (Mann-Whitney, exact)`, `shift in [12.1, 30.4] (bootstrap)`.
    public var evidence: String {
        var parts: [String] = []
        if let mannWhitney {
            parts.append("Mann-Whitney U=\(GateNumber.text(mannWhitney.u)) \(GateNumber.p(mannWhitney.pValue)) (\(mannWhitney.method.rawValue))")
        }
        if let bootstrap {
            parts.append(
                "bootstrap shift \(GateNumber.text(bootstrap.estimate)) in [\(GateNumber.text(bootstrap.lower)), "
                    + "\(GateNumber.text(bootstrap.upper))] (\(bootstrap.resamples) resamples)")
        }
        return parts.joined(separator: "; ")
    }
}
