extension ATT {
    /// ATT_READ_MULTIPLE_REQ: the values of two or more attributes of known fixed size (Vol 3 Part F §3.4.4.7).
    public struct ReadMultipleRequest: ATTHandleSetMessage {
        public static var opcode: Opcode { .readMultipleRequest }

        /// At least two handles.
        public let handles: [UInt16]

        /// Precondition: at least two handles.
        public init(handles: [UInt16]) {
            precondition(handles.count >= 2, "a \(Self.opcode.name) names at least two handles")
            self.handles = handles
        }
    }

    /// ATT_READ_MULTIPLE_RSP: the values concatenated, without lengths, truncated to ATT_MTU − 1 bytes
    /// (Vol 3 Part F §3.4.4.8). The client knows the sizes.
    public struct ReadMultipleResponse: ATTMessage {
        public static var opcode: Opcode { .readMultipleResponse }

        public var values: [UInt8]

        public init(values: [UInt8]) { self.values = values }

        public init(decoding reader: inout ByteReader) throws(DecodingError) { values = reader.readRemaining() }

        public func encode(into writer: inout ByteWriter) { writer.write(contentsOf: values) }
    }

    /// ATT_READ_MULTIPLE_VARIABLE_REQ: the values of two or more attributes, each returned with its length
    /// (Vol 3 Part F §3.4.4.11).
    public struct ReadMultipleVariableRequest: ATTHandleSetMessage {
        public static var opcode: Opcode { .readMultipleVariableRequest }

        /// At least two handles.
        public let handles: [UInt16]

        /// Precondition: at least two handles.
        public init(handles: [UInt16]) {
            precondition(handles.count >= 2, "a \(Self.opcode.name) names at least two handles")
            self.handles = handles
        }
    }

    /// ATT_READ_MULTIPLE_VARIABLE_RSP: length–value tuples (Vol 3 Part F §3.4.4.12). The list is cut at
    /// ATT_MTU − 1 bytes, which may truncate the last value but never splits a 2-byte length; that length still
    /// gives the whole value's length.
    public struct ReadMultipleVariableResponse: ATTMessage {
        public static var opcode: Opcode { .readMultipleVariableResponse }

        /// At least one value; only the last may be incomplete.
        public let values: [[UInt8]]
        /// The full length of the last value when it was truncated (longer than `values.last!.count`), else nil.
        public let truncatedLastValueLength: UInt16?

        /// Precondition: at least one value, each at most 65535 bytes; `truncatedLastValueLength`, when given, is
        /// not less than the last value's length.
        public init(values: [[UInt8]], truncatedLastValueLength: UInt16? = nil) {
            precondition(!values.isEmpty, "a Read Multiple Variable Response holds at least one value")
            precondition(values.allSatisfy { $0.count <= Int(UInt16.max) }, "a value is at most 65535 bytes")
            let lastCount = values[values.count - 1].count
            precondition(truncatedLastValueLength.map { Int($0) >= lastCount } ?? true, "truncated below its length")
            self.values = values
            self.truncatedLastValueLength = truncatedLastValueLength.flatMap { Int($0) > lastCount ? $0 : nil }
        }

        public init(decoding reader: inout ByteReader) throws(DecodingError) {
            var values: [[UInt8]] = []
            var truncated: UInt16?
            repeat {
                let length = try reader.readUInt16("value length")
                if reader.remainingCount < Int(length) {
                    truncated = length
                    values.append(reader.readRemaining())
                } else {
                    values.append(try reader.readBytes(Int(length), "attribute value"))
                }
            } while !reader.isAtEnd
            self.values = values
            truncatedLastValueLength = truncated
        }

        public func encode(into writer: inout ByteWriter) {
            for (index, value) in values.enumerated() {
                let isLast = index == values.count - 1
                writer.write(isLast ? truncatedLastValueLength ?? UInt16(value.count) : UInt16(value.count))
                writer.write(contentsOf: value)
            }
        }
    }
}

/// The layout of the Read Multiple requests: a set of two or more attribute handles.
public protocol ATTHandleSetMessage: ATTMessage {
    var handles: [UInt16] { get }
    init(handles: [UInt16])
}

extension ATTHandleSetMessage {
    public init(decoding reader: inout ByteReader) throws(DecodingError) {
        let handles = try reader.readATTList("set of handles", entrySize: 2, minimumCount: 2) {
            r throws(DecodingError) in
            try r.readUInt16("handle")
        }
        self.init(handles: handles)
    }

    public func encode(into writer: inout ByteWriter) { handles.forEach { writer.write($0) } }
}
