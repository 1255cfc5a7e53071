/// A cursor over little-endian wire bytes. Every read checks the remaining length and throws
/// ``DecodingError`` instead of trapping, so a malformed packet from a board can never crash the rig.
public struct ByteReader: Sendable {
    public let bytes: ArraySlice<UInt8>
    public private(set) var offset: Int

    /// What is being decoded, for error messages ("ATT Read By Type Response", "Log Control indication").
    public let context: String

    public init<C: Collection<UInt8>>(_ bytes: C, context: String) {
        self.bytes = ArraySlice(bytes)
        self.offset = self.bytes.startIndex
        self.context = context
    }

    public var remainingCount: Int { bytes.endIndex - offset }
    public var isAtEnd: Bool { offset == bytes.endIndex }
    /// Bytes consumed so far, counted from the start of the input.
    public var position: Int { offset - bytes.startIndex }

    /// `field` is evaluated only when the read fails: a name built per structure (`"AD type of the structure at byte
    /// \(offset)"`) costs nothing on input that decodes.
    private mutating func take(
        _ count: Int, _ field: @autoclosure () -> String
    ) throws(DecodingError) -> ArraySlice<UInt8> {
        guard count >= 0, remainingCount >= count else {
            throw .truncated(context: context, field: field(), needed: count, available: remainingCount, at: position)
        }
        defer { offset += count }
        return bytes[offset..<(offset + count)]
    }

    public mutating func readUInt8(_ field: @autoclosure () -> String = "u8") throws(DecodingError) -> UInt8 {
        try take(1, field()).first!
    }

    public mutating func readInt8(_ field: @autoclosure () -> String = "i8") throws(DecodingError) -> Int8 {
        Int8(bitPattern: try readUInt8(field()))
    }

    public mutating func readUInt16(_ field: @autoclosure () -> String = "u16") throws(DecodingError) -> UInt16 {
        try readLittleEndian(UInt16.self, field())
    }

    public mutating func readInt16(_ field: @autoclosure () -> String = "i16") throws(DecodingError) -> Int16 {
        Int16(bitPattern: try readUInt16(field()))
    }

    public mutating func readUInt24(_ field: @autoclosure () -> String = "u24") throws(DecodingError) -> UInt32 {
        let raw = try take(3, field())
        return raw.reversed().reduce(0) { $0 << 8 | UInt32($1) }
    }

    public mutating func readUInt32(_ field: @autoclosure () -> String = "u32") throws(DecodingError) -> UInt32 {
        try readLittleEndian(UInt32.self, field())
    }

    public mutating func readInt32(_ field: @autoclosure () -> String = "i32") throws(DecodingError) -> Int32 {
        Int32(bitPattern: try readUInt32(field()))
    }

    public mutating func readUInt64(_ field: @autoclosure () -> String = "u64") throws(DecodingError) -> UInt64 {
        try readLittleEndian(UInt64.self, field())
    }

    public mutating func readInt64(_ field: @autoclosure () -> String = "i64") throws(DecodingError) -> Int64 {
        Int64(bitPattern: try readUInt64(field()))
    }

    /// Reads a big-endian integer, for the few formats that use network order (btsnoop captures).
    public mutating func readBigEndian<T: FixedWidthInteger>(
        _: T.Type, _ field: @autoclosure () -> String
    ) throws(DecodingError) -> T {
        let raw = try take(MemoryLayout<T>.size, field())
        return raw.reduce(T.zero) { $0 << 8 | T(truncatingIfNeeded: $1) }
    }

    public mutating func readBytes(
        _ count: Int, _ field: @autoclosure () -> String = "bytes"
    ) throws(DecodingError) -> [UInt8] {
        Array(try take(count, field()))
    }

    /// Everything left; never throws.
    public mutating func readRemaining() -> [UInt8] {
        defer { offset = bytes.endIndex }
        return Array(bytes[offset...])
    }

    /// Throws when bytes are left over where a fixed-size structure should have ended.
    public func expectEnd() throws(DecodingError) {
        guard isAtEnd else { throw .trailingBytes(context: context, count: remainingCount, at: position) }
    }

    private mutating func readLittleEndian<T: FixedWidthInteger>(
        _: T.Type, _ field: @autoclosure () -> String
    ) throws(DecodingError) -> T {
        let raw = try take(MemoryLayout<T>.size, field())
        return raw.reversed().reduce(T.zero) { $0 << 8 | T(truncatingIfNeeded: $1) }
    }
}

/// Why a byte sequence could not be decoded. Each case names the structure, the field and the offset.
public enum DecodingError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The input ended inside `field`.
    case truncated(context: String, field: String, needed: Int, available: Int, at: Int)
    /// Bytes were left after a structure of fixed size.
    case trailingBytes(context: String, count: Int, at: Int)
    /// A field holds a value the specification does not allow.
    case invalidValue(context: String, field: String, reason: String, at: Int)

    public var description: String {
        switch self {
        case let .truncated(context, field, needed, available, at):
            "\(context): truncated at byte \(at): \(field) needs \(needed) byte(s), \(available) left"
        case let .trailingBytes(context, count, at):
            "\(context): \(count) unexpected trailing byte(s) at byte \(at)"
        case let .invalidValue(context, field, reason, at):
            "\(context): invalid \(field) at byte \(at): \(reason)"
        }
    }
}
