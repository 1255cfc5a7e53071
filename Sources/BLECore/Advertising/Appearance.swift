/// The external appearance of a device (Appearance AD type 0x19, CSS Part A §1.12; values in Assigned Numbers
/// §2.6): a 10-bit category and a 6-bit subcategory.
public struct Appearance: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// Builds a value from its category (0–1023) and subcategory (0–63); nil when either is out of range.
    public init?(category: UInt16, subcategory: UInt8) {
        guard category < 0x400, subcategory < 0x40 else { return nil }
        self.init(rawValue: category << 6 | UInt16(subcategory))
    }

    /// Bits 6–15.
    public var category: UInt16 { rawValue >> 6 }
    /// Bits 0–5.
    public var subcategory: UInt8 { UInt8(rawValue & 0x3F) }

    public static let unknown = Self(rawValue: 0x0000)
    public static let genericPhone = Self(rawValue: 0x0040)
    public static let genericComputer = Self(rawValue: 0x0080)
    public static let genericWatch = Self(rawValue: 0x00C0)
    public static let genericTag = Self(rawValue: 0x0200)
    public static let genericHeartRateSensor = Self(rawValue: 0x0340)
    public static let heartRateBelt = Self(rawValue: 0x0341)
    public static let genericSensor = Self(rawValue: 0x0540)
    public static let genericLightFixtures = Self(rawValue: 0x0580)

    /// `0x0341 (category 13, subcategory 1)`.
    public var description: String {
        let hex = String(rawValue, radix: 16, uppercase: true)
        let padded = String(repeating: "0", count: 4 - hex.count) + hex
        return "0x\(padded) (category \(category), subcategory \(subcategory))"
    }
}
