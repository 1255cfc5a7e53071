/// The btsnoop capture format (RFC 1761 "snoop" adapted for HCI; what Android, BlueZ's btmon and Wireshark
/// read): a 16-byte file header, then one record per HCI packet. Every integer is big-endian.
///
/// File header: the magic `btsnoop\0`, version u32 = 1, datalink u32. Record: original length u32, included
/// length u32, flags u32, cumulative drops u32, timestamp i64 in microseconds since midnight 0000-01-01
/// (nominal Gregorian), then the included bytes.
public enum BTSnoop {
    public static let magic: [UInt8] = Array("btsnoop".utf8) + [0]
    public static let version: UInt32 = 1
    public static let fileHeaderLength = 16
    public static let recordHeaderLength = 24
    /// Microseconds from 0000-01-01 00:00 to the Unix epoch, 1970-01-01 00:00.
    public static let unixEpochOffset: Int64 = 0x00DC_DDB3_0F2F_8000

    /// The file header's datalink type: how each record's bytes are framed.
    public struct Datalink: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }

        /// HCI packets without a packet indicator; the flags tell commands and events from data.
        public static let hciUnencapsulated = Self(rawValue: 1001)
        /// HCI packets with their H4 packet indicator, the format this rig writes.
        public static let hciUART = Self(rawValue: 1002)
        public static let hciBSCP = Self(rawValue: 1003)
        public static let hciSerial = Self(rawValue: 1004)
        /// BlueZ's monitor format (btmon).
        public static let linuxMonitor = Self(rawValue: 2001)

        public var name: String {
            switch self {
            case .hciUnencapsulated: "HCI un-encapsulated"
            case .hciUART: "HCI UART (H4)"
            case .hciBSCP: "HCI BSCP"
            case .hciSerial: "HCI serial (H5)"
            case .linuxMonitor: "Linux monitor"
            default: "unknown"
            }
        }

        /// `1002 (HCI UART (H4))`.
        public var description: String { "\(rawValue) (\(name))" }
    }

    /// The file header for a datalink.
    public static func fileHeader(datalink: Datalink = .hciUART) -> [UInt8] {
        var writer = ByteWriter(capacity: fileHeaderLength)
        writer.write(contentsOf: magic)
        writer.writeBigEndian(version)
        writer.writeBigEndian(datalink.rawValue)
        return writer.bytes
    }

    /// A record's packet flags: bit 0 direction (0 sent by the host, 1 received by it), bit 1 kind (0 data,
    /// 1 command or event).
    public struct RecordFlags: OptionSet, Hashable, Sendable {
        public let rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }

        /// Bit 0: controller → host.
        public static let received = Self(rawValue: 0x1)
        /// Bit 1: a command or an event rather than ACL, SCO or ISO data.
        public static let commandOrEvent = Self(rawValue: 0x2)

        /// The flags for a packet of `type` crossing the HCI in `direction`.
        public init(direction: HCI.Direction, type: HCI.PacketType) {
            var flags: Self = direction == .controllerToHost ? .received : []
            if type == .command || type == .event { flags.insert(.commandOrEvent) }
            self = flags
        }

        public var direction: HCI.Direction { contains(.received) ? .controllerToHost : .hostToController }
    }

    /// One record: a packet, when it crossed the HCI and which way.
    public struct Record: Hashable, Sendable, CustomStringConvertible {
        /// The packet's length on the wire; more than `data.count` when the capture truncated it.
        public var originalLength: UInt32
        public var flags: RecordFlags
        /// Packets lost by the capturing side since the capture began.
        public var cumulativeDrops: UInt32
        /// Microseconds since 0000-01-01 00:00 (see ``BTSnoop/unixEpochOffset``).
        public var timestamp: Int64
        /// The included bytes. For datalink 1002, an H4 packet: indicator, then the HCI packet.
        public var data: [UInt8]

        public init(flags: RecordFlags, cumulativeDrops: UInt32 = 0, timestamp: Int64, data: [UInt8]) {
            precondition(data.count <= Int(UInt32.max), "a btsnoop record holds at most 4 GiB")
            originalLength = UInt32(data.count)
            self.flags = flags
            self.cumulativeDrops = cumulativeDrops
            self.timestamp = timestamp
            self.data = data
        }

        public var direction: HCI.Direction { flags.direction }
        /// True when the capture kept fewer bytes than the packet had.
        public var isTruncated: Bool { data.count < originalLength }
        /// The timestamp as time since the Unix epoch.
        public var unixTime: Duration { .microseconds(timestamp &- BTSnoop.unixEpochOffset) }

        /// The record's data as an H4 packet (datalink 1002); throws when it is not one.
        public func h4Packet() throws(DecodingError) -> HCI.H4Packet { try HCI.H4Packet(decoding: data) }

        /// Record header, then data.
        public var encoded: [UInt8] {
            var writer = ByteWriter(capacity: BTSnoop.recordHeaderLength + data.count)
            writer.writeBigEndian(originalLength)
            writer.writeBigEndian(UInt32(data.count))
            writer.writeBigEndian(flags.rawValue)
            writer.writeBigEndian(cumulativeDrops)
            writer.writeBigEndian(timestamp)
            writer.write(contentsOf: data)
            return writer.bytes
        }

        /// `@1700000000.000123 host→controller 020040...`.
        public var description: String {
            let micros = timestamp &- BTSnoop.unixEpochOffset
            let fraction = String(abs(micros % 1_000_000))
            let seconds = "\(micros / 1_000_000).\(String(repeating: "0", count: 6 - fraction.count))\(fraction)"
            return "@\(seconds) \(direction) \(data.hexString)"
        }
    }
}
