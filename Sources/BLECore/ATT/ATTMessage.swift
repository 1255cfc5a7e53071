/// One Attribute Protocol message (Core 5.4 Vol 3 Part F §3.4): a fixed opcode and the parameters that follow it.
///
/// `init(decoding:)` reads the parameters after the opcode up to the end of the reader and throws
/// ``DecodingError`` for anything the specification does not allow; `encode(into:)` writes the parameters only.
/// Use ``encoded`` and `init(decoding: [UInt8])` for whole PDUs, or ``ATT/PDU`` when the opcode is not known.
public protocol ATTMessage: Hashable, Sendable {
    static var opcode: ATT.Opcode { get }

    /// Decodes the parameters that follow the opcode; consumes the reader to its end.
    init(decoding reader: inout ByteReader) throws(DecodingError)

    /// Appends the parameters (not the opcode).
    func encode(into writer: inout ByteWriter)
}

extension ATTMessage {
    /// The name used in decoding errors: `ATT Read By Type Request`.
    public static var context: String { "ATT " + opcode.name }

    /// The complete PDU: the opcode, then the parameters.
    public var encoded: [UInt8] {
        var writer = ByteWriter()
        writer.write(Self.opcode.rawValue)
        encode(into: &writer)
        return writer.bytes
    }

    /// Decodes a complete PDU (opcode included) that must be of this type.
    public init(decoding bytes: [UInt8]) throws(DecodingError) {
        var reader = ByteReader(bytes, context: Self.context)
        let raw = try reader.readUInt8("opcode")
        guard raw == Self.opcode.rawValue else {
            throw .invalidValue(
                context: Self.context, field: "opcode",
                reason: "\(ATT.hex(raw)) is not the opcode of \(Self.opcode.name), \(ATT.hex(Self.opcode.rawValue))",
                at: 0)
        }
        try self.init(decoding: &reader)
    }
}

extension ATT {
    /// How a UUID is written in an ATT PDU. ATT carries only 16-bit and 128-bit UUIDs; a 32-bit UUID is sent in its
    /// 128-bit form (§3.2.1). The raw values are the Format field of the Find Information Response (§3.4.3.2).
    public enum UUIDFormat: UInt8, Hashable, Sendable {
        case uuid16 = 0x01
        case uuid128 = 0x02

        /// The number of bytes a UUID takes in this format.
        public var width: Int { self == .uuid16 ? 2 : 16 }

        /// The shortest format `uuid` can be written in.
        public init(shortestFor uuid: BluetoothUUID) { self = uuid.uint16 != nil ? .uuid16 : .uuid128 }

        /// The format actually used for `uuid`: this one, unless it is 16-bit and `uuid` has no 16-bit alias.
        func effective(for uuid: BluetoothUUID) -> Self { self == .uuid16 && uuid.uint16 == nil ? .uuid128 : self }
    }
}

extension ByteReader {
    /// Reads a UUID of exactly `format.width` bytes.
    mutating func readATTUUID(_ format: ATT.UUIDFormat, _ field: String) throws(DecodingError) -> BluetoothUUID {
        let at = position
        let raw = try readBytes(format.width, field)
        do throws(DecodingError) {
            return try BluetoothUUID(littleEndian: raw)
        } catch {
            throw .invalidValue(context: context, field: field, reason: "not a UUID", at: at)
        }
    }

    /// Reads a UUID filling the rest of the PDU, which must be 2 or 16 bytes long (§3.2.1).
    mutating func readRemainingATTUUID(_ field: String) throws(DecodingError) -> (BluetoothUUID, ATT.UUIDFormat) {
        let format: ATT.UUIDFormat
        switch remainingCount {
        case 2: format = .uuid16
        case 16: format = .uuid128
        default:
            throw .invalidValue(
                context: context, field: field, reason: "\(remainingCount) byte(s); ATT UUIDs are 2 or 16 bytes",
                at: position)
        }
        return (try readATTUUID(format, field), format)
    }

    /// Reads the rest of the PDU as a list of entries of `entrySize` bytes, of which there must be at least
    /// `minimumCount`.
    mutating func readATTList<Entry>(
        _ field: String, entrySize: Int, minimumCount: Int = 1,
        _ entry: (inout ByteReader) throws(DecodingError) -> Entry
    ) throws(DecodingError) -> [Entry] {
        guard entrySize > 0, remainingCount.isMultiple(of: entrySize), remainingCount / entrySize >= minimumCount
        else {
            throw .invalidValue(
                context: context, field: field,
                reason:
                    "\(remainingCount) byte(s) is not at least \(minimumCount) entr\(minimumCount == 1 ? "y" : "ies") "
                    + "of \(entrySize) byte(s)", at: position)
        }
        var entries: [Entry] = []
        entries.reserveCapacity(remainingCount / entrySize)
        while !isAtEnd { entries.append(try entry(&self)) }
        return entries
    }
}

extension ByteWriter {
    /// Writes `uuid` in `format`, or in 128-bit form when it has no 16-bit alias.
    mutating func write(_ uuid: BluetoothUUID, format: ATT.UUIDFormat) {
        write(contentsOf: uuid.littleEndianBytes(width: format.effective(for: uuid).width)!)
    }
}

extension ATT {
    /// `0x0A`, `0x002A`: upper-case hex padded to the integer's width, for error messages.
    static func hex<T: FixedWidthInteger & UnsignedInteger>(_ value: T) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return "0x" + String(repeating: "0", count: max(0, T.bitWidth / 4 - digits.count)) + digits
    }
}

/// The layout the write and push messages share: an attribute handle, then a value that fills the rest of the PDU
/// (Write Request and Command, Handle Value Notification and Indication). Each message stays its own type; this
/// gives them one decoder and one encoder.
public protocol ATTHandleValueMessage: ATTMessage {
    var handle: UInt16 { get }
    var value: [UInt8] { get }
    init(handle: UInt16, value: [UInt8])
}

extension ATTHandleValueMessage {
    public init(decoding reader: inout ByteReader) throws(DecodingError) {
        let handle = try reader.readUInt16("attribute handle")
        self.init(handle: handle, value: reader.readRemaining())
    }

    public func encode(into writer: inout ByteWriter) {
        writer.write(handle)
        writer.write(contentsOf: value)
    }
}

/// The layout of Prepare Write Request and Response: an attribute handle, a value offset, then the part of the
/// value that fills the rest of the PDU.
public protocol ATTQueuedPartMessage: ATTMessage {
    var handle: UInt16 { get }
    var offset: UInt16 { get }
    var value: [UInt8] { get }
    init(handle: UInt16, offset: UInt16, value: [UInt8])
}

extension ATTQueuedPartMessage {
    public init(decoding reader: inout ByteReader) throws(DecodingError) {
        let handle = try reader.readUInt16("attribute handle")
        let offset = try reader.readUInt16("value offset")
        self.init(handle: handle, offset: offset, value: reader.readRemaining())
    }

    public func encode(into writer: inout ByteWriter) {
        writer.write(handle)
        writer.write(offset)
        writer.write(contentsOf: value)
    }
}
