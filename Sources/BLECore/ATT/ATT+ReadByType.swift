extension ATT {
    /// ATT_READ_BY_TYPE_REQ: the values of the attributes of one type in a range (Vol 3 Part F §3.4.4.1). GATT uses
    /// it to discover characteristics (type 0x2803) and included services (0x2802), and to read by UUID.
    public struct ReadByTypeRequest: ATTMessage {
        public static var opcode: Opcode { .readByTypeRequest }

        public var startingHandle: UInt16
        public var endingHandle: UInt16
        public var attributeType: BluetoothUUID
        /// How `attributeType` is written: 16-bit whenever it has a 16-bit alias unless decoded otherwise.
        public var attributeTypeFormat: UUIDFormat

        public init(
            startingHandle: UInt16, endingHandle: UInt16, attributeType: BluetoothUUID,
            attributeTypeFormat: UUIDFormat? = nil
        ) {
            self.startingHandle = startingHandle
            self.endingHandle = endingHandle
            self.attributeType = attributeType
            self.attributeTypeFormat = attributeTypeFormat ?? UUIDFormat(shortestFor: attributeType)
        }

        public init(decoding reader: inout ByteReader) throws(DecodingError) {
            startingHandle = try reader.readUInt16("starting handle")
            endingHandle = try reader.readUInt16("ending handle")
            (attributeType, attributeTypeFormat) = try reader.readRemainingATTUUID("attribute type")
        }

        public func encode(into writer: inout ByteWriter) {
            writer.write(startingHandle)
            writer.write(endingHandle)
            writer.write(attributeType, format: attributeTypeFormat)
        }
    }

    /// ATT_READ_BY_TYPE_RSP: handle–value pairs, all of the same length (Vol 3 Part F §3.4.4.2).
    public struct ReadByTypeResponse: ATTMessage {
        public static var opcode: Opcode { .readByTypeResponse }

        /// The largest value one entry can hold: the Length field is one byte and counts the handle too.
        public static let maximumValueLength = 253

        public struct Entry: Hashable, Sendable {
            public var handle: UInt16
            public var value: [UInt8]

            public init(handle: UInt16, value: [UInt8]) {
                self.handle = handle
                self.value = value
            }
        }

        /// At least one entry; all values have the same length.
        public let entries: [Entry]

        /// Precondition: `entries` is not empty and its values all have the same length, at most 253 bytes.
        public init(entries: [Entry]) {
            precondition(!entries.isEmpty, "a Read By Type Response holds at least one entry")
            let length = entries[0].value.count
            precondition(length <= Self.maximumValueLength, "a Read By Type Response value is at most 253 bytes")
            precondition(
                entries.allSatisfy { $0.value.count == length }, "Read By Type Response values differ in length")
            self.entries = entries
        }

        public init(decoding reader: inout ByteReader) throws(DecodingError) {
            let at = reader.position
            let length = Int(try reader.readUInt8("length"))
            guard length >= 2 else {
                throw .invalidValue(
                    context: reader.context, field: "length",
                    reason: "\(length); an entry holds at least a 2-byte handle", at: at)
            }
            entries = try reader.readATTList("attribute data list", entrySize: length) { r throws(DecodingError) in
                Entry(
                    handle: try r.readUInt16("attribute handle"), value: try r.readBytes(length - 2, "attribute value"))
            }
        }

        public func encode(into writer: inout ByteWriter) {
            writer.write(UInt8(2 + entries[0].value.count))
            for entry in entries {
                writer.write(entry.handle)
                writer.write(contentsOf: entry.value)
            }
        }
    }
}
