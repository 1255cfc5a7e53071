/// A point on a rig's timeline: the time since the clock's origin. The virtual farm's clock starts at zero and
/// moves only when the simulation advances it; the wall clock starts when it is created.
public struct RigInstant: InstantProtocol, Hashable, Sendable, CustomStringConvertible {
    public var sinceOrigin: Duration

    public init(sinceOrigin: Duration) { self.sinceOrigin = sinceOrigin }

    public static let origin = RigInstant(sinceOrigin: .zero)

    public func advanced(by duration: Duration) -> RigInstant { RigInstant(sinceOrigin: sinceOrigin + duration) }
    public func duration(to other: RigInstant) -> Duration { other.sinceOrigin - sinceOrigin }
    public static func < (a: RigInstant, b: RigInstant) -> Bool { a.sinceOrigin < b.sinceOrigin }

    public var description: String { "t+\(sinceOrigin.milliseconds.formatted3)ms" }
}

/// The clock everything time-dependent takes by injection: timeouts, retries, schedules and measurements.
/// Real radios use ``WallClock``; the virtual farm supplies a clock that runs in virtual time.
public protocol RigClock: Clock, Sendable where Instant == RigInstant, Duration == Swift.Duration {}

/// Real time from a monotonic source, measured from the moment the clock was made.
public struct WallClock: RigClock {
    private let base = ContinuousClock()
    private let start: ContinuousClock.Instant

    public init() { start = base.now }

    public var now: RigInstant { RigInstant(sinceOrigin: start.duration(to: base.now)) }
    public var minimumResolution: Duration { base.minimumResolution }

    public func sleep(until deadline: RigInstant, tolerance: Duration?) async throws {
        try await base.sleep(until: start.advanced(by: deadline.sinceOrigin), tolerance: tolerance)
    }
}

extension Duration {
    /// The duration in milliseconds as a floating-point number.
    public var milliseconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) * 1_000 + Double(attoseconds) / 1e15
    }

    /// The duration in seconds as a floating-point number.
    public var seconds: Double { milliseconds / 1_000 }

    /// A duration of `value` microseconds, rounded to the nearest nanosecond.
    public static func microseconds(_ value: Double) -> Duration { .nanoseconds(Int64((value * 1_000).rounded())) }
}

extension Double {
    /// Three decimals, the precision reports use for milliseconds.
    var formatted3: String {
        let scaled = (self * 1000).rounded()
        let sign = scaled < 0 ? "-" : ""
        let magnitude = Int64(abs(scaled))
        let fraction = String(magnitude % 1000)
        return "\(sign)\(magnitude / 1000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)"
    }
}
