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

        /// Where a packet of this type keeps its parameter length: the number of header bytes after the indicator,
        /// the offset of the length field in the header, and whether it is one byte or two (little-endian).
        struct Header {
            let count: Int
            let lengthOffset: Int
            let wide: Bool
            let mask: Int

            /// The parameter length read from the header starting at `start` in `bytes`.
            func length(_ bytes: UnsafeBufferPointer<UInt8>, at start: Int) -> Int {
                let low = Int(bytes[start + lengthOffset])
                return wide ? (low | Int(bytes[start + lengthOffset + 1]) << 8) & mask : low
            }

            func length(_ header: [UInt8]) -> Int { header.withUnsafeBufferPointer { length($0, at: 0) } }
        }

        var header: Header? {
            switch self {
            case .command: Header(count: 3, lengthOffset: 2, wide: false, mask: 0xFF)
            case .aclData: Header(count: 4, lengthOffset: 2, wide: true, mask: 0xFFFF)
            case .synchronousData: Header(count: 3, lengthOffset: 2, wide: false, mask: 0xFF)
            case .event: Header(count: 2, lengthOffset: 1, wide: false, mask: 0xFF)
            case .isoData: Header(count: 4, lengthOffset: 2, wide: true, mask: 0x3FFF)
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
