import BLECore
import DeviceProfiles

/// How one simulated board behaves: the `virtual:` block of a board in the rig file.
public struct VirtualBoardSettings: Sendable, Hashable {
    /// The board's public address; the farm derives one from the board id when absent.
    public var address: DeviceAddress?
    /// False: the board boots and logs as usual but never advertises (an unreachable board).
    public var advertises: Bool
    /// Overrides the link's advertising interval for this board.
    public var advertisingInterval: Duration?
    /// Battery charge at power-on, in percent.
    public var batteryPercent: Double
    /// The room temperature the sensors see, in °C.
    public var temperature: Double
    /// The firmware version the board runs; the profile's default when nil.
    public var firmware: FirmwareVersion?
    /// hrm only: how the heart rate moves.
    public var heartRate: HeartRatePattern
    /// esp-point only: records in the flash ring.
    public var logCapacity: Int
    /// esp-point only: seconds between samples until the central sets another interval.
    public var sampleInterval: UInt32
    /// The RSSI scanners report.
    public var rssi: Int8

    public init(
        address: DeviceAddress? = nil, advertises: Bool = true, advertisingInterval: Duration? = nil,
        batteryPercent: Double = 87, temperature: Double = 22.5, firmware: FirmwareVersion? = nil,
        heartRate: HeartRatePattern = HeartRatePattern(), logCapacity: Int = 2048, sampleInterval: UInt32 = 3600,
        rssi: Int8 = -55
    ) {
        self.address = address
        self.advertises = advertises
        self.advertisingInterval = advertisingInterval
        self.batteryPercent = batteryPercent
        self.temperature = temperature
        self.firmware = firmware
        self.heartRate = heartRate
        self.logCapacity = logCapacity
        self.sampleInterval = sampleInterval
        self.rssi = rssi
    }

    /// A stable public address for a board id: ``Profile/modelAddress(forBoard:)``, which the rig loader also
    /// uses to refuse two boards at one address before a run.
    public static func defaultAddress(for id: String, profile: Profile) -> DeviceAddress {
        profile.modelAddress(forBoard: id)
    }
}
