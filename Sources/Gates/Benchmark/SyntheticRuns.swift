import BLECore
import Foundation
import Reports

/// Runs made from a real run's log for benchmarks and noise tests: each check's raw samples redrawn with
/// replacement and scaled by a per-run drift (log-normal, like the run-to-run noise of a bench), the
/// statistics recomputed from the new samples, everything else kept. Seeded: the same source and seed give the
/// same runs.
public struct SyntheticRuns: Sendable {
    /// The source run's events.
    public let source: [RunEvent]
    /// The standard deviation of the log of each run's drift factor (0.03: runs differ by about ±3 %).
    public var drift: Double = 0.03
    public var seed: UInt64 = 1

    public init(source: [RunEvent], drift: Double = 0.03, seed: UInt64 = 1) {
        self.source = source
        self.drift = drift
        self.seed = seed
    }

    /// Run number `index`, its samples scaled by `slowdown` on top of the drift (1.2 for 20 % slower).
    public func run(_ index: Int, slowdown: Double = 1) -> [RunEvent] {
        var random = SeededRandom(seed: seed, stream: "synthetic-run-\(index)")
        let factor = (drift * Self.normal(&random)).exp * slowdown
        return source.map { event in
            guard case .testFinished(var test) = event, !test.samples.isEmpty else { return event }
            for (position, set) in test.samples.enumerated() {
                let values = set.values.map { _ in set.values[Int(random.next() % UInt64(set.values.count))] * factor }
                test.samples[position].values = values
                test.measurements = Self.restated(test.measurements, metric: set.metric, from: values)
            }
            return .testFinished(test)
        }
    }

    /// `measurements` with `metric`'s summary statistics recomputed from `values`.
    static func restated(_ measurements: [MeasuredValue], metric: String, from values: [Double]) -> [MeasuredValue] {
        guard !values.isEmpty else { return measurements }
        let sorted = values.sorted()
        return measurements.map { value in
            guard value.metric == metric else { return value }
            var changed = value
            switch value.statistic {
            case .p50: changed.value = Quantile.of(sorted: sorted, 0.5)
            case .p95: changed.value = Quantile.of(sorted: sorted, 0.95)
            case .p99: changed.value = Quantile.of(sorted: sorted, 0.99)
            case .max: changed.value = sorted.last!
            case .min: changed.value = sorted.first!
            case .mean: changed.value = sorted.reduce(0, +) / Double(sorted.count)
            case .count: changed.value = Double(sorted.count)
            case .value where sorted.count == 1: changed.value = sorted[0]
            default: break
            }
            return changed
        }
    }

    /// A standard normal draw (Box-Muller).
    static func normal(_ random: inout SeededRandom) -> Double {
        let u1 = max(random.nextUnit(), .leastNonzeroMagnitude)
        let u2 = random.nextUnit()
        return (-2 * Foundation.log(u1)).squareRoot() * Foundation.cos(2 * .pi * u2)
    }
}

extension Double {
    fileprivate var exp: Double { Foundation.exp(self) }
}
