import Foundation

/// The Mann-Whitney U test (Wilcoxon rank-sum test) of two independent samples, as
/// `scipy.stats.mannwhitneyu(x, y, alternative:, method:, use_continuity=True)` computes it: the same statistic,
/// the same p-values (Tests/GatesTests checks them against scipy's answers).
///
/// - ``u`` is U of `x`: the number of pairs (xᵢ, yⱼ) with xᵢ > yⱼ, ties counting ½; `R₁ − n₁(n₁+1)/2` with
///   R₁ the sum of `x`'s mid-ranks in the pooled sample.
/// - Asymptotic: U is normal with mean n₁n₂/2 and variance `n₁n₂/12 · ((n+1) − Σ(t³−t) / (n(n−1)))`, t running
///   over the sizes of groups of tied values (the tie correction); a continuity correction of ½ towards the
///   mean. One-sided `greater` uses U₁, `less` uses U₂ = n₁n₂ − U₁, two-sided doubles the tail of max(U₁, U₂).
/// - Exact: the null distribution of U counted over all C(n₁+n₂, n₁) arrangements (``MannWhitneyU/exactTail``),
///   valid only without ties.
public struct MannWhitneyU: Sendable, Hashable {
    /// Which difference the test looks for.
    public enum Alternative: String, Sendable, Hashable, CaseIterable {
        /// `x` tends to be larger than `y` (the run is slower than the baseline).
        case greater
        /// `x` tends to be smaller than `y`.
        case less
        case twoSided = "two-sided"
    }

    /// How the p-value is computed.
    public enum Method: String, Sendable, Hashable, CaseIterable {
        /// Exact when there are no ties and the exact count is cheap (n₁·n₂ ≤ ``exactLimit``), else asymptotic.
        case auto
        case exact
        case asymptotic
    }

    /// Above this n₁·n₂, `auto` uses the normal approximation: counting costs about (n₁n₂)²/4 additions, and at
    /// this size the approximation is within a few per cent of the exact tail down to p = 10⁻⁴.
    public static let exactLimit = 2_500

    /// U of `x`.
    public let u: Double
    public let n1: Int
    public let n2: Int
    public let alternative: Alternative
    /// The method actually used (never `auto`).
    public let method: Method
    /// The standardised statistic of the asymptotic method; nil for the exact one.
    public let z: Double?
    public let pValue: Double

    /// Tests `x` against `y`. Both must be non-empty and free of NaN; `exact` with ties in the pooled sample
    /// falls back to asymptotic, as the exact count assumes distinct values.
    public init(_ x: [Double], _ y: [Double], alternative: Alternative = .twoSided, method: Method = .auto) {
        precondition(!x.isEmpty && !y.isEmpty, "the Mann-Whitney U test needs two non-empty samples")
        let ranked = Self.ranks(x + y)
        let n1 = x.count
        let n2 = y.count
        let r1 = ranked.ranks[..<n1].reduce(0, +)
        let u1 = r1 - Double(n1 * (n1 + 1)) / 2
        let u2 = Double(n1 * n2) - u1
        let hasTies = ranked.tieGroups.contains { $0 > 1 }
        let resolved: Method =
            switch method {
            case .auto: !hasTies && n1 * n2 <= Self.exactLimit ? .exact : .asymptotic
            case .exact: hasTies ? .asymptotic : .exact
            case .asymptotic: .asymptotic
            }
        let (tailStatistic, factor): (Double, Double) =
            switch alternative {
            case .greater: (u1, 1)
            case .less: (u2, 1)
            case .twoSided: (max(u1, u2), 2)
            }
        var z: Double?
        var p: Double
        switch resolved {
        case .exact:
            p = Self.exactTail(atLeast: Int(tailStatistic.rounded()), n1, n2)
        default:
            let n = Double(n1 + n2)
            let tieTerm = ranked.tieGroups.reduce(0.0) { $0 + Double($1) * Double($1) * Double($1) - Double($1) }
            let variance = Double(n1) * Double(n2) / 12 * ((n + 1) - tieTerm / (n * (n - 1)))
            let numerator = tailStatistic - Double(n1) * Double(n2) / 2 - 0.5
            // Every value tied: no evidence either way (scipy gives NaN here; a gate needs an answer).
            let standardised = variance > 0 ? numerator / variance.squareRoot() : (numerator > 0 ? .infinity : 0)
            z = standardised
            p = Normal.survival(standardised)
        }
        p = min(1, max(0, p * factor))
        self.u = u1
        self.n1 = n1
        self.n2 = n2
        self.alternative = alternative
        self.method = resolved
        self.z = z
        self.pValue = p
    }

    /// Mid-ranks (1-based, ties sharing the mean of their ranks) of `values` in their order, and the sizes of the
    /// groups of equal values.
    static func ranks(_ values: [Double]) -> (ranks: [Double], tieGroups: [Int]) {
        let order = values.indices.sorted { values[$0] < values[$1] }
        var ranks = [Double](repeating: 0, count: values.count)
        var groups: [Int] = []
        var start = 0
        while start < order.count {
            var end = start + 1
            while end < order.count, values[order[end]] == values[order[start]] { end += 1 }
            let rank = Double(start + 1 + end) / 2
            for index in order[start..<end] { ranks[index] = rank }
            groups.append(end - start)
            start = end
        }
        return (ranks, groups)
    }
}
