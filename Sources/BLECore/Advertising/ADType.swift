/// The type byte of an AD structure (Assigned Numbers §2.3, "Common Data Types"; formats in Core Specification
/// Supplement Part A). Types without a typed ``ADStructure`` case are kept raw and re-encoded unchanged.
public struct ADType: RawRepresentable, Hashable, Sendable, Comparable, CustomStringConvertible {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// CSS Part A §1.3.
    public static let flags = Self(rawValue: 0x01)
    /// CSS Part A §1.1.
    public static let incompleteServiceUUIDs16 = Self(rawValue: 0x02)
    public static let completeServiceUUIDs16 = Self(rawValue: 0x03)
    public static let incompleteServiceUUIDs32 = Self(rawValue: 0x04)
    public static let completeServiceUUIDs32 = Self(rawValue: 0x05)
    public static let incompleteServiceUUIDs128 = Self(rawValue: 0x06)
    public static let completeServiceUUIDs128 = Self(rawValue: 0x07)
    /// CSS Part A §1.2.
    public static let shortenedLocalName = Self(rawValue: 0x08)
    public static let completeLocalName = Self(rawValue: 0x09)
    /// CSS Part A §1.5.
    public static let txPowerLevel = Self(rawValue: 0x0A)
    public static let classOfDevice = Self(rawValue: 0x0D)
    public static let peripheralConnectionIntervalRange = Self(rawValue: 0x12)
    public static let serviceSolicitationUUIDs16 = Self(rawValue: 0x14)
    public static let serviceSolicitationUUIDs128 = Self(rawValue: 0x15)
    /// CSS Part A §1.11.
    public static let serviceData16 = Self(rawValue: 0x16)
    public static let publicTargetAddress = Self(rawValue: 0x17)
    public static let randomTargetAddress = Self(rawValue: 0x18)
    /// CSS Part A §1.12.
    public static let appearance = Self(rawValue: 0x19)
    public static let advertisingInterval = Self(rawValue: 0x1A)
    public static let leBluetoothDeviceAddress = Self(rawValue: 0x1B)
    public static let leRole = Self(rawValue: 0x1C)
    public static let serviceSolicitationUUIDs32 = Self(rawValue: 0x1F)
    public static let serviceData32 = Self(rawValue: 0x20)
    public static let serviceData128 = Self(rawValue: 0x21)
    public static let uri = Self(rawValue: 0x24)
    /// CSS Part A §1.4.
    public static let manufacturerSpecificData = Self(rawValue: 0xFF)

    /// The service UUID list type for a width and completeness (0x02–0x07).
    public static func serviceUUIDs(_ width: BluetoothUUID.Width, complete: Bool) -> ADType {
        let incomplete: UInt8 =
            switch width {
            case .bits16: 0x02
            case .bits32: 0x04
            case .bits128: 0x06
            }
        return ADType(rawValue: incomplete + (complete ? 1 : 0))
    }

    /// The service data type for a UUID width (0x16, 0x20, 0x21).
    public static func serviceData(_ width: BluetoothUUID.Width) -> ADType {
        switch width {
        case .bits16: .serviceData16
        case .bits32: .serviceData32
        case .bits128: .serviceData128
        }
    }

    public var name: String {
        switch self {
        case .flags: "Flags"
        case .incompleteServiceUUIDs16: "Incomplete List of 16-bit Service UUIDs"
        case .completeServiceUUIDs16: "Complete List of 16-bit Service UUIDs"
        case .incompleteServiceUUIDs32: "Incomplete List of 32-bit Service UUIDs"
        case .completeServiceUUIDs32: "Complete List of 32-bit Service UUIDs"
        case .incompleteServiceUUIDs128: "Incomplete List of 128-bit Service UUIDs"
        case .completeServiceUUIDs128: "Complete List of 128-bit Service UUIDs"
        case .shortenedLocalName: "Shortened Local Name"
        case .completeLocalName: "Complete Local Name"
        case .txPowerLevel: "Tx Power Level"
        case .classOfDevice: "Class of Device"
        case .peripheralConnectionIntervalRange: "Peripheral Connection Interval Range"
        case .serviceSolicitationUUIDs16: "List of 16-bit Service Solicitation UUIDs"
        case .serviceSolicitationUUIDs128: "List of 128-bit Service Solicitation UUIDs"
        case .serviceData16: "Service Data - 16-bit UUID"
        case .publicTargetAddress: "Public Target Address"
        case .randomTargetAddress: "Random Target Address"
        case .appearance: "Appearance"
        case .advertisingInterval: "Advertising Interval"
        case .leBluetoothDeviceAddress: "LE Bluetooth Device Address"
        case .leRole: "LE Role"
        case .serviceSolicitationUUIDs32: "List of 32-bit Service Solicitation UUIDs"
        case .serviceData32: "Service Data - 32-bit UUID"
        case .serviceData128: "Service Data - 128-bit UUID"
        case .uri: "URI"
        case .manufacturerSpecificData: "Manufacturer Specific Data"
        default: "AD type"
        }
    }

    /// `0x09 (Complete Local Name)`.
    public var description: String {
        let hex = String(rawValue, radix: 16, uppercase: true)
        return "0x\(hex.count < 2 ? "0" : "")\(hex) (\(name))"
    }

    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
}
