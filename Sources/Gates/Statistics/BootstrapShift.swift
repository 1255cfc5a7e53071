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
        var random = SeededRandom(seed: seed, stream: "gates/bootstrap")
        var xs = Resampler(x)
        var ys = Resampler(y)
        estimate = Quantile.of(sorted: xs.sorted, quantile) - Quantile.of(sorted: ys.sorted, quantile)
        var shifts = [Double](repeating: 0, count: resamples)
        for index in 0..<resamples {
            shifts[index] = xs.quantile(quantile, using: &random) - ys.quantile(quantile, using: &random)
        }
        shifts.sort()
        lower = Quantile.of(sorted: shifts, alpha)
        upper = Quantile.of(sorted: shifts, 1 - alpha)
        self.resamples = resamples
    }

    /// Draws resamples of one sample and reads a quantile of each without sorting it: a resample of a sorted
    /// sample is a count of draws per position, and its order statistics are where those counts add up. O(n)
    /// per resample instead of O(n log n).
    struct Resampler {
        let sorted: [Double]
        private var counts: [Int]

        init(_ values: [Double]) {
            sorted = values.sorted()
            counts = [Int](repeating: 0, count: values.count)
        }

        /// The `p` quantile (type 7, as ``Quantile``) of a fresh resample.
        mutating func quantile(_ p: Double, using random: inout SeededRandom) -> Double {
            let n = sorted.count
            for index in counts.indices { counts[index] = 0 }
            for _ in 0..<n { counts[Int(random.next() % UInt64(n))] += 1 }
            let h = Double(n - 1) * min(1, max(0, p))
            let low = Int(h.rounded(.down))
            // The values at sorted positions `low` and `low + 1` of the resample.
            var seen = 0
            var lowValue = sorted[n - 1]
            var highValue = sorted[n - 1]
            var foundLow = false
            for (position, count) in counts.enumerated() where count > 0 {
                seen += count
                if !foundLow, seen > low {
                    lowValue = sorted[position]
                    foundLow = true
                }
                if seen > low + 1 {
                    highValue = sorted[position]
                    break
                }
            }
            if low + 1 >= n { highValue = lowValue }
            return lowValue + (h - Double(low)) * (highValue - lowValue)
        }
    }
}
