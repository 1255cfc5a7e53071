import BLECore
import Histogram
import Testing

@testable import Orchestrator

@Suite("latency histogram")
struct LatencyHistogramTests {
    /// Values spread over the range a latency takes (µs to an hour), ties and zeros included.
    static func values(count: Int, seed: UInt64) -> [UInt64] {
        var random = SplitMix64(seed: seed)
        return (0..<count).map { _ in
            switch random.next() % 6 {
            case 0: 0
            case 1: random.next() % 1_000
            case 2: 400_000 + random.next() % 100
            case 3: random.next() % 5_000_000
            case 4: random.next() % 4_000_000_000
            default: 123_456
            }
        }
    }

    @Test("kept values give the figures HdrHistogram gives for the same values", arguments: [1, 2, 3, 7, 20, 101, 1_000])
    func exactMatchesHistogram(count: Int) {
        for seed in UInt64(1)...20 {
            let values = Self.values(count: count, seed: seed &* 7919 &+ UInt64(count))
            var latency = LatencyHistogram(metric: "m", definition: "d")
            var reference = LatencyHistogram.makeHistogram()
            for value in values {
                latency.record(microseconds: value)
                _ = reference.record(min(value, LatencyHistogram.highestTrackable))
            }
            for p in [0.0, 1, 50, 95, 99, 99.9, 100] {
                #expect(latency.percentileMicroseconds(p) == reference.valueAtPercentile(p), "p\(p) of \(values)")
            }
            #expect(latency.maxMicroseconds == reference.max)
            #expect(latency.count == reference.totalCount)
        }
    }

    @Test("past the kept values the histogram takes over with the same figures")
    func histogramTakesOver() {
        let values = Self.values(count: 300, seed: 42)
        var small = LatencyHistogram(metric: "m", definition: "d", exactLimit: 50)
        var large = LatencyHistogram(metric: "m", definition: "d", exactLimit: 10_000)
        for value in values {
            small.record(microseconds: value)
            large.record(microseconds: value)
        }
        #expect(small.measurements == large.measurements)
        #expect(small.count == 300)
    }
}
