extension HCI {
    /// One HCI packet with its H4 packet indicator, as sent over a UART transport (Core 5.4 Vol 4 Part A §2) and
    /// stored in btsnoop records of datalink 1002. `body` is the HCI packet itself (header and parameters).
    public struct H4Packet: Hashable, Sendable, CustomStringConvertible {
        public var type: PacketType
        public var body: [UInt8]

        public init(type: PacketType, body: [UInt8]) {
            self.type = type
            self.body = body
        }

        public init(_ packet: ACLDataPacket) { self.init(type: .aclData, body: packet.encoded) }
        public init(_ event: EventPacket) { self.init(type: .event, body: event.encoded) }

        /// Decodes exactly one packet: a known indicator, then a header whose length field describes the rest.
        public init(decoding bytes: some Collection<UInt8>) throws(DecodingError) {
            var reader = ByteReader(bytes, context: "H4 packet")
            let raw = try reader.readUInt8("packet indicator")
            type = PacketType(rawValue: raw)
            guard let header = type.header else {
                throw .invalidValue(
                    context: "H4 packet", field: "packet indicator",
                    reason: "0x\([raw].hexString) is not 0x01–0x05 (command, ACL, SCO, event, ISO)", at: 0)
            }
            var headerBytes = try reader.readBytes(header.count, "\(type.name) header")
            let length = header.length(headerBytes)
            headerBytes += try reader.readBytes(length, "\(type.name) parameters")
            try reader.expectEnd()
            body = headerBytes
        }

        /// The indicator, then the packet.
        public var encoded: [UInt8] { [type.rawValue] + body }

        /// The ACL data packet this carries; throws when it is another type or malformed.
        public func aclDataPacket() throws(DecodingError) -> ACLDataPacket {
            guard type == .aclData else {
                throw .invalidValue(
                    context: "H4 packet", field: "packet indicator", reason: "\(type) is not ACL data", at: 0)
            }
            return try ACLDataPacket(decoding: body)
        }

        /// The event packet this carries; throws when it is another type or malformed.
        public func eventPacket() throws(DecodingError) -> EventPacket {
            guard type == .event else {
                throw .invalidValue(
                    context: "H4 packet", field: "packet indicator", reason: "\(type) is not an event", at: 0)
            }
            return try EventPacket(decoding: body)
        }

        /// `0x02 (ACL data) 4000070003000400...`.
        public var description: String { "\(type) \(body.hexString)" }
    }

    /// Splits a byte stream from an H4 transport into packets, fed in chunks of any size (sans-I/O, like Bumble's
    /// `PacketParser.feed_data`). An unknown packet indicator loses framing for good: the parser throws and must
    /// be reset together with the transport.
    public struct H4Parser: Hashable, Sendable {
        private var buffer: [UInt8] = []
        /// Bytes consumed since the last reset, for error offsets.
        private var consumed = 0

        public init() {}

        /// Bytes held for a packet not yet complete.
        public var bufferedCount: Int { buffer.count }

        /// Takes the next bytes; returns the packets they complete, in order.
        public mutating func feed(_ bytes: some Sequence<UInt8>) throws(DecodingError) -> [H4Packet] {
            var packets: [H4Packet] = []
            try feed(bytes, into: &packets)
            return packets
        }

        /// Takes the next bytes and appends the packets they complete to `packets`, in order. When framing is
        /// lost, the packets completed before the bad byte are in `packets` when this throws.
        public mutating func feed(_ bytes: some Sequence<UInt8>, into packets: inout [H4Packet]) throws(DecodingError) {
            try feed(ArraySlice(bytes), into: &packets)
        }

        /// ``feed(_:into:)-(some Sequence<UInt8>,_)`` for the slice of a read buffer, as a transport's reader has
        /// it: whole packets are cut straight from `bytes`, and only a packet's unfinished tail is kept.
        public mutating func feed(_ bytes: ArraySlice<UInt8>, into packets: inout [H4Packet]) throws(DecodingError) {
            if buffer.isEmpty {
                let used = try bytes.withUnsafeBufferPointer { (input) throws(DecodingError) in
                    try Self.cut(input, consumedBefore: consumed, into: &packets)
                }
                buffer.append(contentsOf: bytes.dropFirst(used))
                consumed += used
            } else {
                buffer.append(contentsOf: bytes)
                let before = consumed
                let used = try buffer.withUnsafeBufferPointer { (held) throws(DecodingError) in
                    try Self.cut(held, consumedBefore: before, into: &packets)
                }
                buffer.removeFirst(used)
                consumed += used
            }
        }

        /// Appends the whole packets at the start of `bytes` to `packets`; returns the bytes they took.
        private static func cut(
            _ bytes: UnsafeBufferPointer<UInt8>, consumedBefore: Int, into packets: inout [H4Packet]
        ) throws(DecodingError) -> Int {
            var start = 0
            while let length = try packetLength(bytes, at: start, consumedBefore: consumedBefore) {
                let body = Array(bytes[(start + 1)..<(start + length)])
                packets.append(H4Packet(type: PacketType(rawValue: bytes[start]), body: body))
                start += length
            }
            return start
        }

        /// The length of the whole H4 packet (indicator, header, parameters) at `start` in `bytes`, or nil while it
        /// is not all there; throws when the byte at `start` is not a packet indicator (framing is lost, and the
        /// error's offset counts `consumedBefore` bytes before `bytes`). Reads nothing but the header, so a reader
        /// that works on its own buffer can frame packets without copying them.
        public static func packetLength(
            _ bytes: UnsafeBufferPointer<UInt8>, at start: Int, consumedBefore: Int = 0
        ) throws(DecodingError) -> Int? {
            guard start < bytes.count else { return nil }
            guard let header = PacketType(rawValue: bytes[start]).header else {
                throw .invalidValue(
                    context: "H4 stream", field: "packet indicator",
                    reason: "0x\([bytes[start]].hexString) is not 0x01–0x05; framing is lost",
                    at: consumedBefore + start)
            }
            let headerEnd = start + 1 + header.count
            guard bytes.count >= headerEnd else { return nil }
            let end = headerEnd + header.length(bytes, at: start + 1)
            return bytes.count >= end ? end - start : nil
        }

        /// Forgets buffered bytes and offsets (after the transport reconnects).
        public mutating func reset() {
            buffer = []
            consumed = 0
        }
    }
}
