import BLECore

/// How a virtual heart-rate monitor's rate moves over time (set per board in the rig file).
public struct HeartRatePattern: Sendable, Hashable {
    public enum Shape: String, Sendable, Hashable, CaseIterable {
        /// `base` with a little seeded jitter.
        case steady
        /// From `base` to `peak` over `period`, then back down, repeating (a workout).
        case ramp
        /// `base`, with a jump to `peak` for 20 % of every `period`.
        case spikes
        /// A sine between `base` and `peak` with the given period.
        case sine
    }

    public var shape: Shape
    public var base: Int
    public var peak: Int
    public var period: Duration
    /// Include RR intervals in the measurement.
    public var rrIntervals: Bool
    /// Include energy expended (every tenth measurement, as the spec suggests).
    public var energyExpended: Bool

    public init(
        shape: Shape = .ramp, base: Int = 70, peak: Int = 160, period: Duration = .seconds(120),
        rrIntervals: Bool = true, energyExpended: Bool = true
    ) {
        self.shape = shape
        self.base = base
        self.peak = peak
        self.period = period
        self.rrIntervals = rrIntervals
        self.energyExpended = energyExpended
    }

    /// The rate at `elapsed` since the sensor started, before jitter.
    public func rate(at elapsed: Duration) -> Double {
        let phase = period > .zero ? (elapsed / period).truncatingRemainder(dividingBy: 1) : 0
        let span = Double(peak - base)
        switch shape {
        case .steady: return Double(base)
        case .ramp: return Double(base) + span * (phase < 0.5 ? phase * 2 : (1 - phase) * 2)
        case .spikes: return phase < 0.8 ? Double(base) : Double(peak)
        case .sine: return Double(base) + span * (1 - cos(2 * Double.pi * phase)) / 2
        }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
