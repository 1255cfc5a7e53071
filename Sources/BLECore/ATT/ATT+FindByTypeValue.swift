extension ATT {
    /// ATT_FIND_BY_TYPE_VALUE_REQ: the handles of the attributes in a range with a 16-bit type and an exact value
    /// (Vol 3 Part F §3.4.3.3). GATT uses it to discover primary services by UUID.
    public struct FindByTypeValueRequest: ATTMessage {
        public static var opcode: Opcode { .findByTypeValueRequest }

        public var startingHandle: UInt16
        public var endingHandle: UInt16
        /// Always a 16-bit UUID: the field is two bytes wide.
        public let attributeType: BluetoothUUID
        public var value: [UInt8]

        /// Precondition: `attributeType` has a 16-bit alias.
        public init(startingHandle: UInt16, endingHandle: UInt16, attributeType: BluetoothUUID, value: [UInt8]) {
            precondition(attributeType.uint16 != nil, "Find By Type Value takes a 16-bit attribute type")
            self.startingHandle = startingHandle
            self.endingHandle = endingHandle
            self.attributeType = attributeType
            self.value = value
        }

        public init(decoding reader: inout ByteReader) throws(DecodingError) {
            startingHandle = try reader.readUInt16("starting handle")
            endingHandle = try reader.readUInt16("ending handle")
            attributeType = try reader.readATTUUID(.uuid16, "attribute type")
            value = reader.readRemaining()
        }

        public func encode(into writer: inout ByteWriter) {
            writer.write(startingHandle)
            writer.write(endingHandle)
            writer.write(attributeType, format: .uuid16)
            writer.write(contentsOf: value)
        }
    }

    /// ATT_FIND_BY_TYPE_VALUE_RSP: for each match, its handle and the end of its group (Vol 3 Part F §3.4.3.4).
    public struct FindByTypeValueResponse: ATTMessage {
        public static var opcode: Opcode { .findByTypeValueResponse }

        public struct HandlesInformation: Hashable, Sendable {
            public var foundHandle: UInt16
            /// The last handle of the group the found attribute starts, or `foundHandle` when it is no grouping
            /// attribute.
            public var groupEndHandle: UInt16

            public init(foundHandle: UInt16, groupEndHandle: UInt16) {
                self.foundHandle = foundHandle
                self.groupEndHandle = groupEndHandle
            }
        }

        /// At least one entry.
        public let handles: [HandlesInformation]

        /// Precondition: `handles` is not empty.
        public init(handles: [HandlesInformation]) {
            precondition(!handles.isEmpty, "a Find By Type Value Response holds at least one entry")
            self.handles = handles
        }

        public init(decoding reader: inout ByteReader) throws(DecodingError) {
            handles = try reader.readATTList("handles information list", entrySize: 4) { r throws(DecodingError) in
                HandlesInformation(
                    foundHandle: try r.readUInt16("found attribute handle"),
                    groupEndHandle: try r.readUInt16("group end handle"))
            }
        }

        public func encode(into writer: inout ByteWriter) {
            for entry in handles {
                writer.write(entry.foundHandle)
                writer.write(entry.groupEndHandle)
            }
        }
    }
}
