import BLECore

/// A percentile bootstrap of the difference of one quantile between two samples, q(x) − q(y): each resample
/// draws n₁ values from `x` and n₂ from `y` with replacement, and the interval's bounds are quantiles of the
/// resampled differences. Seeded (``BLECore/SeededRandom``), so the same samples and seed give the same
/// interval on every machine.
public struct BootstrapShift: Sendable, Hashable {
    /// q(x) − q(y) on the samples themselves.
    public let estimate: Double
    /// The `alpha` quantile of the resampled differences: with confidence 1 − α, the shift is above it.
    public let lower: Double
    /// The 1 − `alpha` quantile: with confidence 1 − α, the shift is below it.
    public let upper: Double
    public let resamples: Int

    /// `quantile` in 0...1 (0.5 for the median); `alpha` the one-sided error of each bound.
    public init(
        _ x: [Double], _ y: [Double], quantile: Double = 0.5, alpha: Double, resamples: Int = 2_000,
        seed: UInt64 = 1
    ) {
        precondition(!x.isEmpty && !y.isEmpty, "a bootstrap needs two non-empty samples")
        precondition(resamples > 0 && alpha > 0 && alpha < 0.5, "resamples > 0 and alpha in (0, 0.5)")
        estimate = Quantile.of(x, quantile) - Quantile.of(y, quantile)
        var random = SeededRandom(seed: seed, stream: "gates/bootstrap")
        var shifts = [Double](repeating: 0, count: resamples)
        var xs = [Double](repeating: 0, count: x.count)
        var ys = [Double](repeating: 0, count: y.count)
        for index in 0..<resamples {
            Self.draw(from: x, into: &xs, using: &random)
            Self.draw(from: y, into: &ys, using: &random)
            shifts[index] = Quantile.of(sorted: xs, quantile) - Quantile.of(sorted: ys, quantile)
        }
        shifts.sort()
        lower = Quantile.of(sorted: shifts, alpha)
        upper = Quantile.of(sorted: shifts, 1 - alpha)
        self.resamples = resamples
    }

    /// Fills `out` with draws from `values`, sorted.
    private static func draw(from values: [Double], into out: inout [Double], using random: inout SeededRandom) {
        let count = UInt64(values.count)
        for index in out.indices { out[index] = values[Int(random.next() % count)] }
        out.sort()
    }
}
