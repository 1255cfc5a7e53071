extension ATT {
    /// ATT_FIND_INFORMATION_REQ: the handles and types of the attributes in a range (Vol 3 Part F §3.4.3.1).
    public struct FindInformationRequest: ATTMessage {
        public static var opcode: Opcode { .findInformationRequest }

        public var startingHandle: UInt16
        public var endingHandle: UInt16

        public init(startingHandle: UInt16, endingHandle: UInt16) {
            self.startingHandle = startingHandle
            self.endingHandle = endingHandle
        }

        public init(decoding reader: inout ByteReader) throws(DecodingError) {
            startingHandle = try reader.readUInt16("starting handle")
            endingHandle = try reader.readUInt16("ending handle")
            try reader.expectEnd()
        }

        public func encode(into writer: inout ByteWriter) {
            writer.write(startingHandle)
            writer.write(endingHandle)
        }
    }

    /// ATT_FIND_INFORMATION_RSP: handle–type pairs, all with 16-bit or all with 128-bit UUIDs as the Format field
    /// says (Vol 3 Part F §3.4.3.2).
    public struct FindInformationResponse: ATTMessage {
        public static var opcode: Opcode { .findInformationResponse }

        public struct Entry: Hashable, Sendable {
            public var handle: UInt16
            public var type: BluetoothUUID

            public init(handle: UInt16, type: BluetoothUUID) {
                self.handle = handle
                self.type = type
            }
        }

        /// The format every entry is written in. It is 16-bit only when every type has a 16-bit alias.
        public let format: UUIDFormat
        /// At least one entry.
        public let entries: [Entry]

        /// Entries in the given format; when `format` is 16-bit and an entry's type has no 16-bit alias, all are
        /// written in 128-bit form. Precondition: `entries` is not empty.
        public init(format: UUIDFormat, entries: [Entry]) {
            precondition(!entries.isEmpty, "a Find Information Response holds at least one entry")
            self.format = entries.reduce(format) { $0.effective(for: $1.type) }
            self.entries = entries
        }

        /// Entries in the shortest format that fits them all.
        public init(entries: [Entry]) { self.init(format: .uuid16, entries: entries) }

        public init(decoding reader: inout ByteReader) throws(DecodingError) {
            let at = reader.position
            let raw = try reader.readUInt8("format")
            guard let format = UUIDFormat(rawValue: raw) else {
                throw .invalidValue(
                    context: reader.context, field: "format", reason: "\(ATT.hex(raw)); expected 0x01 or 0x02", at: at)
            }
            self.format = format
            entries = try reader.readATTList("information data", entrySize: 2 + format.width) {
                r throws(DecodingError) in
                Entry(handle: try r.readUInt16("handle"), type: try r.readATTUUID(format, "UUID"))
            }
        }

        public func encode(into writer: inout ByteWriter) {
            writer.write(format.rawValue)
            for entry in entries {
                writer.write(entry.handle)
                writer.write(entry.type, format: format)
            }
        }
    }
}
