import BLECore
import Foundation
import Testing

@testable import Gates

/// Regression decisions under noise: the same distribution drawn twice is not flagged more often than α allows,
/// and a real shift of 20 % is caught.
@Suite("Regression gates under noise")
struct RegressionNoiseTests {
    /// Latency-like samples: log-normal around `median` ms with spread `sigma`, on a 1.25 ms grid when `grid`
    /// (as connection events make them, with many ties).
    static func latencies(
        _ count: Int, median: Double = 200, sigma: Double = 0.15, grid: Bool = false, random: inout SeededRandom
    ) -> [Double] {
        (0..<count).map { _ in
            let value = median * exp(sigma * SyntheticRuns.normal(&random))
            return grid ? (value / 1.25).rounded() * 1.25 : value
        }
    }

    static let gate = RegressionLimit(metric: "handshake.ready_ms", maxChange: 0.10, minEffect: 5, minSamples: 20)

    struct Rates {
        var significant = 0
        var breached = 0
        var trials = 0
    }

    /// Runs `trials` comparisons of two fresh draws, the run's scaled by `shift`.
    static func rates(
        trials: Int, count: Int, shift: Double, grid: Bool, limit: RegressionLimit, seed: UInt64
    ) -> Rates {
        var random = SeededRandom(seed: seed)
        var rates = Rates(trials: trials)
        for _ in 0..<trials {
            let baseline = latencies(count, grid: grid, random: &random)
            let run = latencies(count, grid: grid, random: &random).map { $0 * shift }
            let result = RegressionComparison(run: run, baseline: baseline, limit: limit, alpha: limit.alpha)
            if let test = result.mannWhitney, test.pValue <= limit.alpha { rates.significant += 1 }
            if let interval = result.bootstrap, interval.lower > 0 { rates.significant += 1 }
            if result.decision == .breached { rates.breached += 1 }
        }
        return rates
    }

    @Test(
        "the same distribution drawn twice: Mann-Whitney is significant at about α, the gate is not breached",
        arguments: [false, true])
    func sameDistributionMannWhitney(grid: Bool) {
        let rates = Self.rates(trials: 1_000, count: 30, shift: 1, grid: grid, limit: Self.gate, seed: grid ? 2 : 1)
        // α = 0.01 over 1000 trials: 10 expected; 3 standard deviations above is 19.5.
        #expect(rates.significant <= 20, "\(rates.significant) of 1000 significant at α 0.01")
        // Not vacuous: the test does reject at about its level rather than never.
        #expect(rates.significant >= 2)
        // A breach needs the test and an effect over 10 %: rarer still. (Medians of 30 draws with a spread of
        // 15 % differ by more than 10 % in about 2 % of pairs, so a few coincide with a significant test.)
        #expect(rates.breached <= rates.significant)
        #expect(rates.breached <= 10, "\(rates.breached) of 1000 breached")
    }

    @Test("the same distribution drawn twice: the bootstrap interval excludes 0 at about α")
    func sameDistributionBootstrap() {
        var limit = Self.gate
        limit.test = .bootstrap
        limit.alpha = 0.05
        limit.resamples = 500
        let rates = Self.rates(trials: 200, count: 30, shift: 1, grid: false, limit: limit, seed: 3)
        // One-sided α = 0.05 over 200 trials: 10 expected; the percentile bootstrap of a median runs a little
        // liberal at n = 30, so the bound is 2 × α.
        #expect(rates.significant <= 20, "\(rates.significant) of 200 significant at α 0.05")
        #expect(rates.significant >= 2)
        #expect(rates.breached <= rates.significant)
    }

    @Test(
        "a 20 % slower run is caught by each test", arguments: [RegressionLimit.Test.mannWhitney, .bootstrap, .both])
    func shiftIsCaught(_ test: RegressionLimit.Test) {
        var limit = Self.gate
        limit.test = test
        limit.resamples = 500
        let trials = test == .mannWhitney ? 500 : 100
        let rates = Self.rates(trials: trials, count: 30, shift: 1.2, grid: true, limit: limit, seed: 4)
        #expect(Double(rates.breached) >= 0.9 * Double(trials), "\(rates.breached) of \(trials) caught")
    }

    @Test("a faster run does not breach an increase gate; a slower one breaches a decrease gate only when smaller")
    func direction() {
        var random = SeededRandom(seed: 5)
        let baseline = Self.latencies(40, random: &random)
        let faster = Self.latencies(40, random: &random).map { $0 * 0.7 }
        #expect(RegressionComparison(run: faster, baseline: baseline, limit: Self.gate, alpha: 0.01).decision == .held)
        var throughput = Self.gate
        throughput.direction = .decrease
        #expect(RegressionComparison(run: faster, baseline: baseline, limit: throughput, alpha: 0.01).decision == .breached)
        let slower = baseline.map { $0 * 1.3 }
        #expect(RegressionComparison(run: slower, baseline: baseline, limit: throughput, alpha: 0.01).decision == .held)
    }

    @Test("a significant shift smaller than the allowed change or min_effect holds")
    func smallShiftsHold() throws {
        var random = SeededRandom(seed: 6)
        let baseline = Self.latencies(2_000, sigma: 0.05, random: &random)
        let run = Self.latencies(2_000, sigma: 0.05, random: &random).map { $0 * 1.04 }
        let result = RegressionComparison(run: run, baseline: baseline, limit: Self.gate, alpha: 0.01)
        #expect(try #require(result.mannWhitney).pValue < 1e-6)
        #expect(result.decision == .held)
        // 4 % of 200 ms is 8 ms: with max_increase 1 % it breaches, unless min_effect asks for 10 ms.
        var strict = Self.gate
        strict.maxChange = 0.01
        strict.minEffect = 0
        #expect(RegressionComparison(run: run, baseline: baseline, limit: strict, alpha: 0.01).decision == .breached)
        strict.minEffect = 10
        #expect(RegressionComparison(run: run, baseline: baseline, limit: strict, alpha: 0.01).decision == .held)
    }

    @Test("fewer samples than min_samples on either side is not enough data, however different")
    func tooFewSamples() {
        let baseline = [Double](repeating: 100, count: 19) + [101]
        let run = [Double](repeating: 500, count: 19)
        let result = RegressionComparison(run: run, baseline: baseline, limit: Self.gate, alpha: 0.01)
        #expect(result.decision == .notEnoughData)
        #expect(result.runQuantile == 500)
        let enough = RegressionComparison(run: run + [500], baseline: baseline, limit: Self.gate, alpha: 0.01)
        #expect(enough.decision == .breached)
    }

    @Test("the bootstrap is deterministic for a seed and differs across seeds")
    func bootstrapSeeded() {
        var random = SeededRandom(seed: 7)
        let x = Self.latencies(25, random: &random)
        let y = Self.latencies(25, random: &random)
        let a = BootstrapShift(x, y, alpha: 0.05, resamples: 500, seed: 9)
        let b = BootstrapShift(x, y, alpha: 0.05, resamples: 500, seed: 9)
        let c = BootstrapShift(x, y, alpha: 0.05, resamples: 500, seed: 10)
        #expect(a == b)
        #expect(a.lower != c.lower || a.upper != c.upper)
        #expect(a.lower <= a.estimate && a.estimate <= a.upper)
    }
}

extension RegressionNoiseTests {
    @Test("a resample's quantile read from draw counts equals the quantile of the sorted resample")
    func resamplerMatchesSorting() {
        var random = SeededRandom(seed: 11)
        for n in [1, 2, 3, 10, 31] {
            let values = Self.latencies(n, grid: n > 3, random: &random)
            for p in [0.0, 0.1, 0.5, 0.95, 1.0] {
                var resampler = BootstrapShift.Resampler(values)
                var counting = SeededRandom(seed: UInt64(n))
                var drawing = SeededRandom(seed: UInt64(n))
                let sorted = values.sorted()
                for _ in 0..<20 {
                    let fast = resampler.quantile(p, using: &counting)
                    let drawn = (0..<n).map { _ in sorted[Int(drawing.next() % UInt64(n))] }
                    #expect(fast == Quantile.of(drawn, p), "n \(n) p \(p)")
                }
            }
        }
    }
}
