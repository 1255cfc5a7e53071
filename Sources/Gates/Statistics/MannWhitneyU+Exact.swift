import Synchronization

extension MannWhitneyU {
    /// P(U ≥ `u`) under the null hypothesis for samples of `n1` and `n2` distinct values: the share of the
    /// C(n₁+n₂, n₁) equally likely arrangements of the pooled sample whose U is at least `u`.
    static func exactTail(atLeast u: Int, _ n1: Int, _ n2: Int) -> Double {
        let tails = upperTails(n1, n2)
        guard u > 0 else { return 1 }
        guard u < tails.count else { return 0 }
        return tails[u]
    }

    /// P(U ≥ u) for every u, for samples of `n1` and `n2`; kept for the last sizes asked (a gate compares the
    /// same sizes run after run).
    static func upperTails(_ n1: Int, _ n2: Int) -> [Double] {
        let key = SizePair(n1: min(n1, n2), n2: max(n1, n2))
        if let known = tailCache.withLock({ $0[key] }) { return known }
        // The distribution of U is the same with the samples swapped.
        let counts = exactCounts(key.n1, key.n2)
        let total = counts.reduce(0, +)
        var tails = [Double](repeating: 0, count: counts.count)
        var sum = 0.0
        for u in counts.indices.reversed() {
            sum += counts[u]
            tails[u] = sum / total
        }
        tailCache.withLock { cache in
            if cache.count >= 64 { cache.removeAll() }
            cache[key] = tails
        }
        return tails
    }

    private struct SizePair: Hashable {
        var n1: Int
        var n2: Int
    }

    private static let tailCache = Mutex<[SizePair: [Double]]>([:])

    /// f(n₁, n₂; u) for u in 0...n₁n₂: how many arrangements give each U.
    ///
    /// The recurrence f(i, j; u) = f(i−1, j; u−j) + f(i, j−1; u): the largest pooled value is either an `x`,
    /// which beats all j `y`s, or a `y`, which beats none; f(0, j) = f(i, 0) = [1]. Only additions of
    /// non-negative counts, held as doubles: no cancellation, so small tails keep their relative precision.
    static func exactCounts(_ n1: Int, _ n2: Int) -> [Double] {
        guard n1 > 0, n2 > 0 else { return [1] }
        // previous[j] is f(i−1, j); current[j] is f(i, j).
        var previous = [[Double]](repeating: [1], count: n2 + 1)
        for i in 1...n1 {
            var current = [[Double]](repeating: [1], count: n2 + 1)
            for j in 1...n2 {
                var counts = [Double](repeating: 0, count: i * j + 1)
                for (u, count) in previous[j].enumerated() { counts[u + j] += count }
                for (u, count) in current[j - 1].enumerated() { counts[u] += count }
                current[j] = counts
            }
            previous = current
        }
        return previous[n2]
    }
}
