import Foundation

/// The exact (Garwood, 1936) confidence interval for the rate of a Poisson process: `count` events seen in
/// `exposure` units of time give the rate bounds
///
///     lower = χ²(α/2; 2k) / 2T,   upper = χ²(1 − α/2; 2k + 2) / 2T
///
/// where χ²(p; ν) is the p-quantile of the chi-square distribution with ν degrees of freedom, i.e.
/// χ²(p; 2k)/2 = the p-quantile of the Gamma(k, 1) distribution. With no events the lower bound is 0. The
/// interval is "exact" in that its coverage is at least 1 − α for every true rate (it is conservative).
struct PoissonInterval: Sendable, Hashable {
    var count: Int
    var exposure: Double
    var confidence: Double
    var rate: Double
    var lower: Double
    var upper: Double

    /// - Parameters:
    ///   - count: events seen (0 or more).
    ///   - exposure: time observed, > 0, in the unit the rate is per (connection-hours for `link.drop_rate`).
    ///   - confidence: 1 − α, e.g. 0.95.
    init(count: Int, exposure: Double, confidence: Double = 0.95) {
        precondition(count >= 0 && exposure > 0 && confidence > 0 && confidence < 1)
        self.count = count
        self.exposure = exposure
        self.confidence = confidence
        let alpha = 1 - confidence
        rate = Double(count) / exposure
        lower = count == 0 ? 0 : GammaDistribution.quantile(alpha / 2, shape: Double(count)) / exposure
        upper = GammaDistribution.quantile(1 - alpha / 2, shape: Double(count + 1)) / exposure
    }

    func contains(_ value: Double) -> Bool { value >= lower && value <= upper }
}

/// The standard Gamma(a, 1) distribution: its CDF, the regularized lower incomplete gamma function P(a, x), and
/// the inverse of it.
enum GammaDistribution {
    /// P(a, x) = γ(a, x) / Γ(a), for a > 0, x ≥ 0. A series below x = a + 1, Lentz's continued fraction for the
    /// upper function above it (Numerical Recipes §6.2), each to full double precision.
    static func cdf(_ x: Double, shape a: Double) -> Double {
        precondition(a > 0, "the gamma shape must be positive")
        if x <= 0 { return 0 }
        if x.isInfinite { return 1 }
        let logPrefactor = a * log(x) - x - lgamma(a)
        if x < a + 1 {
            var term = 1 / a
            var sum = term
            var n = a
            for _ in 0..<100_000 {
                n += 1
                term *= x / n
                sum += term
                if abs(term) < abs(sum) * 1e-17 { break }
            }
            return min(1, sum * exp(logPrefactor))
        }
        let tiny = 1e-300
        var b = x + 1 - a
        var c = 1 / tiny
        var d = 1 / b
        var h = d
        for i in 1..<100_000 {
            let an = -Double(i) * (Double(i) - a)
            b += 2
            d = an * d + b
            if abs(d) < tiny { d = tiny }
            c = b + an / c
            if abs(c) < tiny { c = tiny }
            d = 1 / d
            let delta = d * c
            h *= delta
            if abs(delta - 1) < 1e-17 { break }
        }
        return max(0, 1 - exp(logPrefactor) * h)
    }

    /// The x with P(a, x) = p, for 0 < p < 1: bracketed, then bisected to the resolution of a double (the CDF is
    /// monotonic, so this cannot fail to converge; a few hundred CDF evaluations at most).
    static func quantile(_ p: Double, shape a: Double) -> Double {
        precondition(p > 0 && p < 1, "a quantile needs 0 < p < 1")
        var low = 0.0
        var high = max(1, a)
        while cdf(high, shape: a) < p { (low, high) = (high, high * 2) }
        for _ in 0..<2_000 {
            let middle = (low + high) / 2
            if middle <= low || middle >= high { break }
            if cdf(middle, shape: a) < p { low = middle } else { high = middle }
        }
        return (low + high) / 2
    }
}
