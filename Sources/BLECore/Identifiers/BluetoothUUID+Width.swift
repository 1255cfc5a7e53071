extension BluetoothUUID {
    /// A width a UUID can travel in: 16, 32 or 128 bits (Core 5.4 Vol 3 Part B §2.5.1). Advertising data and
    /// service data say in their AD type which width they carry, so re-encoding must keep it.
    public enum Width: Int, Hashable, Sendable, CaseIterable, CustomStringConvertible {
        case bits16 = 2
        case bits32 = 4
        case bits128 = 16

        /// The number of bytes on the wire.
        public var byteCount: Int { rawValue }

        /// `16-bit`, `32-bit`, `128-bit`.
        public var description: String { "\(rawValue * 8)-bit" }
    }

    /// The narrowest width this UUID can be written in.
    public var narrowestWidth: Width {
        if uint16 != nil { return .bits16 }
        return uint32 != nil ? .bits32 : .bits128
    }

    /// True when this UUID has an alias of the given width (every UUID has a 128-bit form).
    public func fits(_ width: Width) -> Bool { littleEndianBytes(width: width) != nil }

    /// Little-endian wire bytes at a given width. Nil when this UUID has no alias of that width.
    public func littleEndianBytes(width: Width) -> [UInt8]? { littleEndianBytes(width: width.byteCount) }

    /// Decodes a little-endian UUID of exactly `width` bytes from a reader.
    public init(from reader: inout ByteReader, width: Width, _ field: String = "UUID") throws(DecodingError) {
        try self.init(littleEndian: reader.readBytes(width.byteCount, field))
    }
}
