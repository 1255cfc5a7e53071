/// The Flags AD type (0x01): how the device can be discovered and whether it speaks BR/EDR
/// (Core Specification Supplement Part A §1.3; Core 5.4 Vol 3 Part C §9.2). Bits 5–7 are reserved and kept.
public struct AdvertisingFlags: OptionSet, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Bit 0: discoverable for a limited time (about 180 s).
    public static let leLimitedDiscoverable = Self(rawValue: 0x01)
    /// Bit 1: discoverable until told otherwise.
    public static let leGeneralDiscoverable = Self(rawValue: 0x02)
    /// Bit 2: the device does not support BR/EDR (classic Bluetooth).
    public static let brEdrNotSupported = Self(rawValue: 0x04)
    /// Bit 3: LE and BR/EDR simultaneously to the same device, controller side.
    public static let simultaneousLEAndBrEdrController = Self(rawValue: 0x08)
    /// Bit 4: LE and BR/EDR simultaneously to the same device, host side (previously used).
    public static let simultaneousLEAndBrEdrHost = Self(rawValue: 0x10)

    /// What every LE-only peripheral in general discoverable mode sends: `0x06`.
    public static let generalDiscoverableLEOnly: Self = [.leGeneralDiscoverable, .brEdrNotSupported]

    /// `0x06 [general discoverable, no BR/EDR]`.
    public var description: String {
        let names: [(Self, String)] = [
            (.leLimitedDiscoverable, "limited discoverable"), (.leGeneralDiscoverable, "general discoverable"),
            (.brEdrNotSupported, "no BR/EDR"), (.simultaneousLEAndBrEdrController, "LE+BR/EDR controller"),
            (.simultaneousLEAndBrEdrHost, "LE+BR/EDR host"),
        ]
        var parts = names.filter { contains($0.0) }.map(\.1)
        if rawValue & 0xE0 != 0 { parts.append("reserved bits") }
        let hex = String(rawValue, radix: 16, uppercase: true)
        return "0x\(hex.count < 2 ? "0" : "")\(hex) [\(parts.joined(separator: ", "))]"
    }
}
