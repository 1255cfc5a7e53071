/// Sample quantiles by linear interpolation between order statistics (Hyndman and Fan's type 7, the default of
/// numpy and R): for sorted x₀ ≤ … ≤ xₙ₋₁ and p in [0, 1], h = (n−1)p and the value is
/// x⌊h⌋ + (h − ⌊h⌋)(x⌊h⌋₊₁ − x⌊h⌋). The median of an even count is the mean of the middle two.
enum Quantile {
    /// The `p` quantile (0...1) of `sorted`, which must be sorted ascending and non-empty.
    static func of(sorted: [Double], _ p: Double) -> Double {
        precondition(!sorted.isEmpty, "a quantile of no values")
        let h = Double(sorted.count - 1) * min(1, max(0, p))
        let low = Int(h.rounded(.down))
        let high = min(low + 1, sorted.count - 1)
        return sorted[low] + (h - Double(low)) * (sorted[high] - sorted[low])
    }

    /// The `p` quantile of `values` in any order.
    static func of(_ values: [Double], _ p: Double) -> Double {
        of(sorted: values.sorted(), p)
    }
}
