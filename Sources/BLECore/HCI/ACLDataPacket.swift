extension HCI {
    /// An HCI ACL Data packet (Core 5.4 Vol 4 Part E §5.4.2): a u16 holding the connection handle (bits 0–11),
    /// the packet boundary flag (bits 12–13) and the broadcast flag (bits 14–15), a u16 data length, the data.
    public struct ACLDataPacket: Hashable, Sendable, CustomStringConvertible {
        public static let headerLength = 4

        /// 0x0000–0x0FFF (12 bits).
        public var handle: UInt16
        public var boundary: PacketBoundary
        public var broadcast: BroadcastFlag
        public var data: [UInt8]

        /// `handle` must fit 12 bits and `data` 65535 bytes (programming errors otherwise).
        public init(handle: UInt16, boundary: PacketBoundary, broadcast: BroadcastFlag = .pointToPoint, data: [UInt8]) {
            precondition(handle <= 0x0FFF, "an HCI connection handle has 12 bits")
            precondition(data.count <= Int(UInt16.max), "an ACL data packet holds at most 65535 bytes")
            self.handle = handle
            self.boundary = boundary
            self.broadcast = broadcast
            self.data = data
        }

        /// Decodes exactly one packet (without an H4 indicator): the length field must describe the rest.
        public init(decoding bytes: some Collection<UInt8>) throws(DecodingError) {
            var reader = ByteReader(bytes, context: "HCI ACL data packet")
            let field = try reader.readUInt16("handle and flags")
            handle = field & 0x0FFF
            boundary = PacketBoundary(rawValue: UInt8(field >> 12 & 0x03))!
            broadcast = BroadcastFlag(rawValue: UInt8(field >> 14))!
            let length = Int(try reader.readUInt16("data total length"))
            data = try reader.readBytes(length, "data")
            try reader.expectEnd()
        }

        public var encoded: [UInt8] {
            var writer = ByteWriter(capacity: Self.headerLength + data.count)
            writer.write(handle & 0x0FFF | UInt16(boundary.rawValue) << 12 | UInt16(broadcast.rawValue) << 14)
            writer.write(UInt16(data.count))
            writer.write(contentsOf: data)
            return writer.bytes
        }

        /// The L2CAP fragment this packet carries: a continuation for boundary 0b01, else a start.
        public var fragment: L2CAP.Fragment { L2CAP.Fragment(boundary == .continuing ? .continuation : .start, data) }

        /// An L2CAP frame cut into ACL packets of at most `maximumDataLength` bytes (the controller's ACL buffer
        /// size). The first packet is marked "first non-flushable" going to the controller and "first flushable"
        /// coming from it, as LE requires (§5.4.2).
        public static func packets(
            carrying frame: L2CAP.BasicFrame, handle: UInt16, direction: Direction, maximumDataLength: Int
        ) -> [ACLDataPacket] {
            let first: PacketBoundary = direction == .hostToController ? .firstNonFlushable : .firstFlushable
            return frame.fragments(maximumSize: maximumDataLength).map { fragment in
                ACLDataPacket(handle: handle, boundary: fragment.isStart ? first : .continuing, data: fragment.bytes)
            }
        }

        /// `ACL handle 0x0040 first non-flushable 7 bytes`.
        public var description: String {
            "ACL handle 0x\(String(handle, radix: 16)) \(boundary) \(data.count) bytes: \(data.hexString)"
        }
    }

    /// The Packet_Boundary_Flag of an ACL data packet (Core 5.4 Vol 4 Part E §5.4.2).
    public struct PacketBoundary: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: UInt8
        /// Nil above 3 (two bits).
        public init?(rawValue: UInt8) {
            guard rawValue <= 3 else { return nil }
            self.rawValue = rawValue
        }
        private init(_ value: UInt8) { rawValue = value }

        /// 0b00: the start of a non-automatically-flushable L2CAP PDU, host to controller (what an LE host sends).
        public static let firstNonFlushable = Self(0b00)
        /// 0b01: a continuing fragment.
        public static let continuing = Self(0b01)
        /// 0b10: the start of an automatically flushable L2CAP PDU (what an LE controller sends the host).
        public static let firstFlushable = Self(0b10)
        /// 0b11: a complete automatically flushable L2CAP PDU (BR/EDR only).
        public static let complete = Self(0b11)

        public var description: String {
            ["first non-flushable", "continuing", "first flushable", "complete"][Int(rawValue)]
        }
    }

    /// The Broadcast_Flag of an ACL data packet (Core 5.4 Vol 4 Part E §5.4.2). LE uses point-to-point only.
    public struct BroadcastFlag: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: UInt8
        /// Nil above 3 (two bits).
        public init?(rawValue: UInt8) {
            guard rawValue <= 3 else { return nil }
            self.rawValue = rawValue
        }
        private init(_ value: UInt8) { rawValue = value }

        /// 0b00: ACL-U or LE-U.
        public static let pointToPoint = Self(0b00)
        /// 0b01: BR/EDR broadcast (APB-U).
        public static let brEdrBroadcast = Self(0b01)

        public var description: String {
            ["point-to-point", "BR/EDR broadcast", "reserved 0b10", "reserved 0b11"][Int(rawValue)]
        }
    }
}
