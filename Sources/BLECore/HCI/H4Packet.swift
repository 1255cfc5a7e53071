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
            buffer.append(contentsOf: bytes)
            var start = 0
            defer {
                buffer.removeFirst(start)
                consumed += start
            }
            while start < buffer.count {
                let type = PacketType(rawValue: buffer[start])
                guard let header = type.header else {
                    let at = consumed + start
                    throw .invalidValue(
                        context: "H4 stream", field: "packet indicator",
                        reason: "0x\([buffer[start]].hexString) is not 0x01–0x05; framing is lost", at: at)
                }
                let headerEnd = start + 1 + header.count
                guard buffer.count >= headerEnd else { break }
                let end = headerEnd + header.length(Array(buffer[(start + 1)..<headerEnd]))
                guard buffer.count >= end else { break }
                packets.append(H4Packet(type: type, body: Array(buffer[(start + 1)..<end])))
                start = end
            }
        }

        /// Forgets buffered bytes and offsets (after the transport reconnects).
        public mutating func reset() {
            buffer = []
            consumed = 0
        }
    }
}
