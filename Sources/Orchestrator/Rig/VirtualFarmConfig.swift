/// The virtual farm's settings: `virtual:` at the top of a rig file. Every key is optional; the defaults are the
/// ones below (and those of the virtual farm's `LinkParameters()`). When the radio is virtual and the block is
/// absent, the loader applies all defaults; on a hardware rig the block is allowed and unused.
///
/// ```yaml
/// virtual:
///   seed: 42                       # u64, default 1: the same seed gives the same run
///   link:
///     interval_ms: 15              # 7.5…4000, a multiple of 1.25                  default 15
///     packets_per_event: 6         # 1…32                                          default 6
///     phy: 2M                      # 1M | 2M | coded                               default 2M
///     data_length: 251             # 27…251 octets                                 default 251
///     supervision_timeout_ms: 4000 # 100…32000, a multiple of 10,
///                                  # more than (1 + latency) × interval × 2        default 4000
///     adv_interval_ms: 100         # 20…10240, a multiple of 0.625                 default 100
///     latency: 0                   # peripheral latency, 0…499                     default 0
///   faults:
///     drops_per_hour: 0.5          # unexpected link losses per connection-hour    default 0
///   airs: shared                   # shared | per_radio                            default shared
/// ```
///
/// `airs: per_radio` gives each radio an air of its own, with the boards pinned to it (`radio:` on every board):
/// radios that never hear each other's boards, each simulated on its own thread, so the run uses every core and
/// gives the same results as on one.
public struct VirtualFarmConfig: Hashable, Sendable {
    public static let defaultSeed: UInt64 = 1

    /// The LE physical layer of the modelled connections (advertising always uses LE 1M).
    public enum PHY: String, Hashable, Sendable, CaseIterable {
        case le1M = "1M"
        case le2M = "2M"
        /// LE Coded, S = 8.
        case leCoded = "coded"
    }

    /// The modelled radio link (docs/architecture.md, "The virtual link model").
    public struct Link: Hashable, Sendable {
        public static let intervalRange = 7.5...4_000.0
        public static let intervalStep = 1.25
        public static let packetsPerEventRange = 1...32
        public static let dataLengthRange = 27...251
        public static let supervisionTimeoutRange = 100...32_000
        public static let supervisionTimeoutStep = 10
        public static let advertisingIntervalRange = 20.0...10_240.0
        public static let advertisingIntervalStep = 0.625
        public static let latencyRange = 0...499

        public var intervalMs: Double = 15
        public var packetsPerEvent: Int = 6
        public var phy: PHY = .le2M
        public var dataLength: Int = 251
        public var supervisionTimeoutMs: Int = 4_000
        public var advertisingIntervalMs: Double = 100
        /// Peripheral latency: connection events the peripheral may skip.
        public var latency: Int = 0
        /// Where `link:` is written, or the farm's location when it is not.
        public var location: SourceLocation

        /// The defaults.
        public init(at location: SourceLocation) { self.location = location }
    }

    /// Faults the farm injects, drawn from the seed. More kinds will join `drops_per_hour`.
    public struct Faults: Hashable, Sendable {
        public static let dropsPerHourRange = 0.0...3_600.0

        /// Unexpected link losses per connection-hour (a Poisson process), each noticed after the supervision
        /// timeout with reason 0x08.
        public var dropsPerHour: Double = 0
        public var location: SourceLocation

        /// No faults.
        public init(at location: SourceLocation) { self.location = location }
    }

    /// How the rig's radios share the air.
    public enum Airs: String, Hashable, Sendable, CaseIterable {
        /// One air: every radio hears every board.
        case shared
        /// An air per radio, with the boards pinned to it; each simulated on its own thread.
        case perRadio = "per_radio"
    }

    public var seed: UInt64
    public var link: Link
    public var faults: Faults
    public var airs: Airs = .shared
    /// Where `virtual:` is written, or where `radio:` is when the block is absent.
    public var location: SourceLocation

    /// The defaults.
    public init(at location: SourceLocation) {
        seed = Self.defaultSeed
        link = Link(at: location)
        faults = Faults(at: location)
        self.location = location
    }
}
