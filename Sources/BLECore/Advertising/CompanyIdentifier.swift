/// A company identifier, the first two bytes of Manufacturer Specific Data (CSS Part A §1.4; values in Assigned
/// Numbers §7, "Company Identifiers").
public struct CompanyIdentifier: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public static let ericsson = Self(rawValue: 0x0000)
    public static let apple = Self(rawValue: 0x004C)
    public static let nordicSemiconductor = Self(rawValue: 0x0059)
    public static let espressif = Self(rawValue: 0x02E5)
    /// 0xFFFF: reserved for internal use and interoperability tests; never assigned to a company. The rig's test
    /// firmware uses it (see docs/board-contract.md).
    public static let testing = Self(rawValue: 0xFFFF)

    /// `0xFFFF`.
    public var description: String {
        let hex = String(rawValue, radix: 16, uppercase: true)
        return "0x\(String(repeating: "0", count: 4 - hex.count))\(hex)"
    }
}
