/// The Logical Link Control and Adaptation Protocol (Core 5.4 Vol 3 Part A): the framing between ACL data and
/// ATT, SMP and LE signaling.
public enum L2CAP {
    /// The Basic L2CAP header: a u16 payload length and a u16 channel ID (§3.1).
    public static let headerLength = 4

    /// A channel identifier (§2.1, Table 2.3 for the fixed LE channels).
    public struct ChannelIdentifier: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: UInt16
        public init(rawValue: UInt16) { self.rawValue = rawValue }

        /// BR/EDR signaling.
        public static let signaling = Self(rawValue: 0x0001)
        public static let connectionless = Self(rawValue: 0x0002)
        /// The Attribute Protocol, the only channel GATT uses on LE.
        public static let att = Self(rawValue: 0x0004)
        /// LE signaling (connection parameter updates, credit-based channels).
        public static let leSignaling = Self(rawValue: 0x0005)
        /// The Security Manager Protocol.
        public static let securityManager = Self(rawValue: 0x0006)
        public static let brEdrSecurityManager = Self(rawValue: 0x0007)

        /// 0x0040–0x007F: channels the LE credit-based connection procedure allocates.
        public var isDynamicLE: Bool { (0x0040...0x007F).contains(rawValue) }

        public var name: String {
            switch self {
            case .signaling: "signaling"
            case .connectionless: "connectionless"
            case .att: "ATT"
            case .leSignaling: "LE signaling"
            case .securityManager: "SMP"
            case .brEdrSecurityManager: "BR/EDR SMP"
            default: isDynamicLE ? "dynamic" : "channel"
            }
        }

        /// `0x0004 (ATT)`.
        public var description: String {
            let hex = String(rawValue, radix: 16, uppercase: true)
            return "0x\(String(repeating: "0", count: 4 - hex.count))\(hex) (\(name))"
        }
    }
}
