extension L2CAP {
    /// A B-frame, the Basic information frame of a connection-oriented channel in Basic mode
    /// (Core 5.4 Vol 3 Part A §3.1): length u16 (of the payload), channel ID u16, payload.
    public struct BasicFrame: Hashable, Sendable, CustomStringConvertible {
        /// The length field is a u16.
        public static let maximumPayloadLength = Int(UInt16.max)

        public var channel: ChannelIdentifier
        public var payload: [UInt8]

        public init(channel: ChannelIdentifier, payload: [UInt8]) {
            self.channel = channel
            self.payload = payload
        }

        /// An ATT PDU on the fixed ATT channel.
        public static func att(_ pdu: [UInt8]) -> Self { Self(channel: .att, payload: pdu) }

        /// Decodes exactly one frame: the length field must describe the rest of `bytes`.
        public init(decoding bytes: some Collection<UInt8>) throws(DecodingError) {
            var reader = ByteReader(bytes, context: "L2CAP B-frame")
            let length = Int(try reader.readUInt16("length"))
            channel = ChannelIdentifier(rawValue: try reader.readUInt16("channel ID"))
            payload = try reader.readBytes(length, "payload")
            try reader.expectEnd()
        }

        /// Header and payload. The payload must not exceed ``maximumPayloadLength`` (a programming error).
        public var encoded: [UInt8] {
            precondition(payload.count <= Self.maximumPayloadLength, "an L2CAP payload holds at most 65535 bytes")
            var writer = ByteWriter(capacity: L2CAP.headerLength + payload.count)
            writer.write(UInt16(payload.count))
            writer.write(channel.rawValue)
            writer.write(contentsOf: payload)
            return writer.bytes
        }

        /// The encoded frame cut into fragments of at most `maximumSize` bytes (the controller's ACL buffer
        /// size, 27 for an LE controller without Data Length Extension): one start fragment, then continuations.
        public func fragments(maximumSize: Int) -> [Fragment] {
            precondition(maximumSize > 0, "a fragment holds at least one byte")
            let bytes = encoded
            return stride(from: 0, to: bytes.count, by: maximumSize).map { start in
                Fragment(
                    start == 0 ? .start : .continuation,
                    Array(bytes[start..<min(start + maximumSize, bytes.count)]))
            }
        }

        /// `L2CAP 0x0004 (ATT) 5 bytes: 0a0300...`.
        public var description: String { "L2CAP \(channel) \(payload.count) bytes: \(payload.hexString)" }
    }

    /// A piece of an encoded B-frame as carried by one ACL data packet: the first piece of a frame is a start
    /// fragment, the others continuations (the ACL packet boundary flag, Core 5.4 Vol 4 Part E §5.4.2).
    public struct Fragment: Hashable, Sendable, CustomStringConvertible {
        public enum Boundary: Hashable, Sendable {
            case start
            case continuation
        }

        public var boundary: Boundary
        public var bytes: [UInt8]

        public init(_ boundary: Boundary, _ bytes: [UInt8]) {
            self.boundary = boundary
            self.bytes = bytes
        }

        public var isStart: Bool { boundary == .start }

        /// `start 0500040001`.
        public var description: String { "\(boundary) \(bytes.hexString)" }
    }
}
