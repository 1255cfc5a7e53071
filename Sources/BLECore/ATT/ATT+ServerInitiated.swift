extension ATT {
    /// ATT_HANDLE_VALUE_NTF: an unacknowledged value push, at most ATT_MTU − 3 bytes (Vol 3 Part F §3.4.7.1).
    public struct HandleValueNotification: ATTHandleValueMessage {
        public static var opcode: Opcode { .handleValueNotification }

        public var handle: UInt16
        public var value: [UInt8]

        public init(handle: UInt16, value: [UInt8]) {
            self.handle = handle
            self.value = value
        }
    }

    /// ATT_HANDLE_VALUE_IND: a value push the client confirms; one at a time (Vol 3 Part F §3.4.7.2).
    public struct HandleValueIndication: ATTHandleValueMessage {
        public static var opcode: Opcode { .handleValueIndication }

        public var handle: UInt16
        public var value: [UInt8]

        public init(handle: UInt16, value: [UInt8]) {
            self.handle = handle
            self.value = value
        }
    }

    /// ATT_HANDLE_VALUE_CFM: the client received an indication (Vol 3 Part F §3.4.7.3). No parameters.
    public struct HandleValueConfirmation: ATTMessage {
        public static var opcode: Opcode { .handleValueConfirmation }

        public init() {}

        public init(decoding reader: inout ByteReader) throws(DecodingError) { try reader.expectEnd() }

        public func encode(into writer: inout ByteWriter) {}
    }

    /// ATT_MULTIPLE_HANDLE_VALUE_NTF: two or more unacknowledged value pushes in one PDU, each as handle, length
    /// and value (Vol 3 Part F §3.4.7.4).
    public struct MultipleHandleValueNotification: ATTMessage {
        public static var opcode: Opcode { .multipleHandleValueNotification }

        public struct Entry: Hashable, Sendable {
            public var handle: UInt16
            public var value: [UInt8]

            public init(handle: UInt16, value: [UInt8]) {
                self.handle = handle
                self.value = value
            }
        }

        /// At least two entries.
        public let entries: [Entry]

        /// Precondition: at least two entries, each value at most 65535 bytes.
        public init(entries: [Entry]) {
            precondition(entries.count >= 2, "a Multiple Handle Value Notification holds at least two values")
            precondition(entries.allSatisfy { $0.value.count <= Int(UInt16.max) }, "a value is at most 65535 bytes")
            self.entries = entries
        }

        public init(decoding reader: inout ByteReader) throws(DecodingError) {
            var entries: [Entry] = []
            while !reader.isAtEnd {
                let handle = try reader.readUInt16("attribute handle")
                let length = try reader.readUInt16("value length")
                entries.append(Entry(handle: handle, value: try reader.readBytes(Int(length), "attribute value")))
            }
            guard entries.count >= 2 else {
                throw .invalidValue(
                    context: reader.context, field: "handle length value tuple list",
                    reason: "\(entries.count) tuple(s); at least two are required", at: 1)
            }
            self.entries = entries
        }

        public func encode(into writer: inout ByteWriter) {
            for entry in entries {
                writer.write(entry.handle)
                writer.write(UInt16(entry.value.count))
                writer.write(contentsOf: entry.value)
            }
        }
    }
}
