import BLECore
import DeviceProfiles

extension BoardConfig {
    /// How the virtual farm simulates the board: `virtual:` under a board. Every key is optional; the defaults are
    /// the virtual farm's (`VirtualBoardSettings()`); the composition root (`Benches`) hands the result to the farm.
    ///
    /// | key | meaning | default |
    /// |---|---|---|
    /// | `address` | the device address | the `match` address, else derived by the farm from the id |
    /// | `advertising` | false: the board never advertises (rehearses an unreachable board) | true |
    /// | `adv_interval_ms` | 20…10240, a multiple of 0.625 | the farm's `link.adv_interval_ms` |
    /// | `battery_percent` | 0…100 at power-on | 87 |
    /// | `temperature_c` | -40…85, what the sensors see | 22.5 |
    /// | `rssi_dbm` | -127…20, what scanners report | -55 |
    /// | `heart_rate` | hrm only, see ``HeartRate`` | ramp 70→160 bpm over 120 s |
    /// | `firmware` | `1.5.0`, or a mapping, see ``Firmware`` | the profile's test firmware |
    public struct VirtualSettings: Hashable, Sendable {
        public static let defaultBatteryPercent = 87.0
        public static let defaultTemperatureC = 22.5
        public static let defaultRSSI = -55
        public static let rssiRange = -127...20

        public var address: DeviceAddress?
        public var advertising: Bool
        /// Nil: the farm's ``VirtualFarmConfig/Link/advertisingIntervalMs``.
        public var advertisingIntervalMs: Double?
        public var batteryPercent: Double
        public var temperatureC: Double
        public var rssiDBm: Int
        /// Set for an hrm board and a described one that measures heart rate (defaults applied), nil for the others.
        public var heartRate: HeartRate?
        public var firmware: Firmware
        public var location: SourceLocation

        /// The defaults for a board of `profile`.
        public init(profile: Profile, at location: SourceLocation) {
            address = nil
            advertising = true
            advertisingIntervalMs = nil
            batteryPercent = Self.defaultBatteryPercent
            temperatureC = Self.defaultTemperatureC
            rssiDBm = Self.defaultRSSI
            heartRate = profile == .hrm || profile.data?.measuresHeartRate == true ? HeartRate(at: location) : nil
            firmware = Firmware(at: location)
            self.location = location
        }
    }

    /// The heart rate an hrm board reports: `heart_rate:` under `virtual:`.
    ///
    /// `steady` holds `base_bpm`; `ramp` climbs from base to peak and back over `period_s`; `spikes` jumps to peak
    /// for the last fifth of every period; `sine` swings between base and peak with period `period_s`.
    /// `peak_bpm` and `period_s` mean nothing to `steady` and are refused there.
    public struct HeartRate: Hashable, Sendable {
        public enum Pattern: String, Hashable, Sendable, CaseIterable {
            case steady, ramp, spikes, sine
        }

        public static let bpmRange = 25...250
        public static let periodRange = 1.0...86_400.0
        public static let defaultPattern = Pattern.ramp
        public static let defaultBaseBPM = 70
        /// Above the alert policy's 140 bpm threshold, so the default pattern exercises `redAlert`.
        public static let defaultPeakBPM = 160
        public static let defaultPeriodS = 120.0

        public var pattern: Pattern
        public var baseBPM: Int
        /// Equal to `baseBPM` for `steady`; by default 160, or `baseBPM` if that is higher.
        public var peakBPM: Int
        public var periodS: Double
        /// Whether measurements carry RR intervals (flags bit 4).
        public var rrIntervals: Bool
        /// Whether measurements carry energy expended (flags bit 3).
        public var energyExpended: Bool
        public var location: SourceLocation

        public init(
            pattern: Pattern = HeartRate.defaultPattern, baseBPM: Int = HeartRate.defaultBaseBPM, peakBPM: Int? = nil,
            periodS: Double = HeartRate.defaultPeriodS, rrIntervals: Bool = true, energyExpended: Bool = true,
            at location: SourceLocation
        ) {
            self.pattern = pattern
            self.baseBPM = baseBPM
            self.peakBPM = pattern == .steady ? baseBPM : (peakBPM ?? max(Self.defaultPeakBPM, baseBPM))
            self.periodS = periodS
            self.rrIntervals = rrIntervals
            self.energyExpended = energyExpended
            self.location = location
        }
    }

    /// The simulated firmware: `firmware: 1.5.0`, or a mapping with `version` and, for an esp-point, the sampling
    /// and flash log settings of docs/board-contract.md (esp-point "Reading").
    public struct Firmware: Hashable, Sendable {
        public static let sampleIntervalRange = 1...86_400
        public static let logCapacityRange = 1...1_000_000
        public static let defaultSampleIntervalS = 3_600
        public static let defaultLogCapacity = 2_048

        /// Nil: the profile's test firmware (1.4.2 for an esp-point, per docs/board-contract.md).
        public var version: FirmwareVersion?
        /// esp-point: seconds between readings until the central sets another interval.
        public var sampleIntervalS: Int
        /// esp-point: records the flash ring holds.
        public var logCapacity: Int
        public var location: SourceLocation

        public init(
            version: FirmwareVersion? = nil, sampleIntervalS: Int = Firmware.defaultSampleIntervalS,
            logCapacity: Int = Firmware.defaultLogCapacity, at location: SourceLocation
        ) {
            self.version = version
            self.sampleIntervalS = sampleIntervalS
            self.logCapacity = logCapacity
            self.location = location
        }
    }
}
