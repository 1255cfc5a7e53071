extension ATT {
    /// ATT_READ_BY_GROUP_TYPE_REQ: the grouping attributes of one type in a range (Vol 3 Part F §3.4.4.9). GATT uses
    /// it with «Primary Service» (0x2800) to discover all primary services.
    public struct ReadByGroupTypeRequest: ATTMessage {
        public static var opcode: Opcode { .readByGroupTypeRequest }

        public var startingHandle: UInt16
        public var endingHandle: UInt16
        public var groupType: BluetoothUUID
        /// How `groupType` is written: 16-bit whenever it has a 16-bit alias unless decoded otherwise.
        public var groupTypeFormat: UUIDFormat

        public init(
            startingHandle: UInt16, endingHandle: UInt16, groupType: BluetoothUUID, groupTypeFormat: UUIDFormat? = nil
        ) {
            self.startingHandle = startingHandle
            self.endingHandle = endingHandle
            self.groupType = groupType
            self.groupTypeFormat = groupTypeFormat ?? UUIDFormat(shortestFor: groupType)
        }

        public init(decoding reader: inout ByteReader) throws(DecodingError) {
            startingHandle = try reader.readUInt16("starting handle")
            endingHandle = try reader.readUInt16("ending handle")
            (groupType, groupTypeFormat) = try reader.readRemainingATTUUID("attribute group type")
        }

        public func encode(into writer: inout ByteWriter) {
            writer.write(startingHandle)
            writer.write(endingHandle)
            writer.write(groupType, format: groupTypeFormat)
        }
    }

    /// ATT_READ_BY_GROUP_TYPE_RSP: for each group, its handle, end group handle and value, all values of the same
    /// length (Vol 3 Part F §3.4.4.10).
    public struct ReadByGroupTypeResponse: ATTMessage {
        public static var opcode: Opcode { .readByGroupTypeResponse }

        /// The largest value one entry can hold: the Length field is one byte and counts both handles too.
        public static let maximumValueLength = 251

        public struct Entry: Hashable, Sendable {
            public var handle: UInt16
            public var endGroupHandle: UInt16
            /// For a service declaration, the service UUID in little-endian order.
            public var value: [UInt8]

            public init(handle: UInt16, endGroupHandle: UInt16, value: [UInt8]) {
                self.handle = handle
                self.endGroupHandle = endGroupHandle
                self.value = value
            }
        }

        /// At least one entry; all values have the same length.
        public let entries: [Entry]

        /// Precondition: `entries` is not empty and its values all have the same length, at most 251 bytes.
        public init(entries: [Entry]) {
            precondition(!entries.isEmpty, "a Read By Group Type Response holds at least one entry")
            let length = entries[0].value.count
            precondition(length <= Self.maximumValueLength, "a Read By Group Type Response value is at most 251 bytes")
            precondition(
                entries.allSatisfy { $0.value.count == length }, "Read By Group Type Response values differ in length")
            self.entries = entries
        }

        public init(decoding reader: inout ByteReader) throws(DecodingError) {
            let at = reader.position
            let length = Int(try reader.readUInt8("length"))
            guard length >= 4 else {
                throw .invalidValue(
                    context: reader.context, field: "length",
                    reason: "\(length); an entry holds at least two 2-byte handles", at: at)
            }
            entries = try reader.readATTList("attribute data list", entrySize: length) { r throws(DecodingError) in
                Entry(
                    handle: try r.readUInt16("attribute handle"), endGroupHandle: try r.readUInt16("end group handle"),
                    value: try r.readBytes(length - 4, "attribute value"))
            }
        }

        public func encode(into writer: inout ByteWriter) {
            writer.write(UInt8(4 + entries[0].value.count))
            for entry in entries {
                writer.write(entry.handle)
                writer.write(entry.endGroupHandle)
                writer.write(contentsOf: entry.value)
            }
        }
    }
}
