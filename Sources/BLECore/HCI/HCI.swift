/// The Host Controller Interface (Core 5.4 Vol 4 Part E): the packets between a host and a controller, as
/// carried by the UART transport (H4, Vol 4 Part A) and recorded in btsnoop captures.
public enum HCI {
    /// The H4 packet indicator, the byte before each HCI packet on a UART transport (Core 5.4 Vol 4 Part A §2).
    public struct PacketType: RawRepresentable, Hashable, Sendable, CaseIterable, CustomStringConvertible {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }

        public static let command = Self(rawValue: 0x01)
        public static let aclData = Self(rawValue: 0x02)
        public static let synchronousData = Self(rawValue: 0x03)
        public static let event = Self(rawValue: 0x04)
        public static let isoData = Self(rawValue: 0x05)

        public static let allCases: [Self] = [.command, .aclData, .synchronousData, .event, .isoData]

        /// The number of header bytes after the indicator, and how to read the parameter length from them.
        var header: (count: Int, length: ([UInt8]) -> Int)? {
            switch self {
            case .command: (3, { Int($0[2]) })
            case .aclData: (4, { Int($0[2]) | Int($0[3]) << 8 })
            case .synchronousData: (3, { Int($0[2]) })
            case .event: (2, { Int($0[1]) })
            case .isoData: (4, { (Int($0[2]) | Int($0[3]) << 8) & 0x3FFF })
            default: nil
            }
        }

        public var name: String {
            switch self {
            case .command: "command"
            case .aclData: "ACL data"
            case .synchronousData: "SCO data"
            case .event: "event"
            case .isoData: "ISO data"
            default: "unknown packet type"
            }
        }

        /// `0x02 (ACL data)`.
        public var description: String {
            let hex = String(rawValue, radix: 16, uppercase: true)
            return "0x\(hex.count < 2 ? "0" : "")\(hex) (\(name))"
        }
    }

    /// Which way a packet crosses the HCI. Commands and outgoing data go host → controller; events and incoming
    /// data controller → host.
    public enum Direction: Hashable, Sendable, CustomStringConvertible {
        case hostToController
        case controllerToHost

        public var description: String { self == .hostToController ? "host→controller" : "controller→host" }
    }

    /// Connection handles have 12 bits; 0x0F00–0x0FFF are reserved (Core 5.4 Vol 4 Part E §5.4.2).
    public static let maximumConnectionHandle: UInt16 = 0x0EFF
}
