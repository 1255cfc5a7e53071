import BLECore

/// The kinds of board the rig tests (docs/board-contract.md): three built-in contracts, and boards described as data
/// (a profile file, docs/profiles.md). Board models in the virtual farm and the central stack's profile clients
/// both build on the definitions in this target: it is the contract between them.
public enum Profile: Sendable, Hashable, CustomStringConvertible {
    /// ESP32 sensor node: readings, flash log, commands, pairing, OTA.
    case espPoint
    /// Arduino Nano 33 BLE Sense: an LED and a temperature sensor.
    case nano33BLESense
    /// Heart-rate monitor with an alert light.
    case hrm
    /// A board described by a profile file; its name is its raw value.
    case described(DataProfile)

    public var description: String { rawValue }

    /// The profile file's description, for a board described as data.
    public var data: DataProfile? { if case .described(let data) = self { data } else { nil } }

    /// Builds a custom UUID on the contract's base `e5b1XXXX-7c3a-4f0e-9d2b-5a1c3e7f9b20`.
    public static func custom(_ short: UInt16) -> BluetoothUUID {
        BluetoothUUID(high: 0xE5B1_0000_7C3A_4F0E | UInt64(short) << 32, low: 0x9D2B_5A1C_3E7F_9B20)
    }
}

/// The built-in profiles by name: what a rig's `profile: esp-point` reads. A described profile's raw value is its
/// name and it is not among ``allCases``, which are the names a rig may write.
extension Profile: RawRepresentable, CaseIterable {
    public static var allCases: [Profile] { [.espPoint, .nano33BLESense, .hrm] }

    public init?(rawValue: String) {
        switch rawValue {
        case "esp-point": self = .espPoint
        case "nano33-ble-sense": self = .nano33BLESense
        case "hrm": self = .hrm
        default: return nil
        }
    }

    public var rawValue: String {
        switch self {
        case .espPoint: "esp-point"
        case .nano33BLESense: "nano33-ble-sense"
        case .hrm: "hrm"
        case .described(let data): data.name
        }
    }
}

/// Standard 16-bit UUIDs the profiles use (Bluetooth Assigned Numbers).
public enum StandardUUID {
    public static let deviceInformation = BluetoothUUID(0x180A)
    public static let battery = BluetoothUUID(0x180F)
    public static let heartRate = BluetoothUUID(0x180D)
    public static let manufacturerName = BluetoothUUID(0x2A29)
    public static let modelNumber = BluetoothUUID(0x2A24)
    public static let serialNumber = BluetoothUUID(0x2A25)
    public static let firmwareRevision = BluetoothUUID(0x2A26)
    public static let batteryLevel = BluetoothUUID(0x2A19)
    public static let heartRateMeasurement = BluetoothUUID(0x2A37)
    public static let bodySensorLocation = BluetoothUUID(0x2A38)
}

/// A firmware version `major.minor.patch`.
public struct FirmwareVersion: Hashable, Sendable, Comparable, CustomStringConvertible, LosslessStringConvertible {
    public var major: UInt8
    public var minor: UInt8
    public var patch: UInt16

    public init(_ major: UInt8, _ minor: UInt8, _ patch: UInt16) {
        self.major = major
        self.minor = minor
        self.patch = patch
    }

    public init?(_ text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let major = UInt8(parts[0]), let minor = UInt8(parts[1]), let patch = UInt16(parts[2])
        else { return nil }
        self.init(major, minor, patch)
    }

    public var description: String { "\(major).\(minor).\(patch)" }

    public static func < (a: Self, b: Self) -> Bool { (a.major, a.minor, a.patch) < (b.major, b.minor, b.patch) }
}
