extension AdvertisingData {
    /// The most a legacy advertising PDU (ADV_IND, SCAN_RSP, ...) carries (Core 5.4 Vol 6 Part B §2.3.1).
    public static let legacyMaximumLength = 31
    /// The most extended advertising carries in one advertising set (Core 5.4 Vol 4 Part E §7.8.54).
    public static let extendedMaximumLength = 1650

    /// Decodes advertising or scan response data (Core 5.4 Vol 3 Part C §11). A zero length byte ends the
    /// significant part; everything after it must be zero padding. Throws ``DecodingError`` naming the AD type
    /// and the offset when a length runs past the end, a UUID list is not a whole number of UUIDs, a fixed-size
    /// type has the wrong size, a name is not UTF-8, or padding is not zero. Never traps.
    public init(decoding bytes: some Collection<UInt8>) throws(DecodingError) {
        var reader = ByteReader(bytes, context: "advertising data")
        var structures: [ADStructure] = []
        while !reader.isAtEnd {
            let offset = reader.position
            let length = Int(try reader.readUInt8("AD structure length"))
            if length == 0 {
                let padding = reader.readRemaining()
                if let index = padding.firstIndex(where: { $0 != 0 }) {
                    throw .invalidValue(
                        context: "advertising data", field: "padding",
                        reason: "byte 0x\([padding[index]].hexString) follows the zero length at byte \(offset) "
                            + "that ended the significant part; only zero padding may follow",
                        at: offset + 1 + index)
                }
                break
            }
            let type = ADType(rawValue: try reader.readUInt8("AD type of the structure at byte \(offset)"))
            let data = try reader.readBytes(length - 1, "\(type) data of the structure at byte \(offset)")
            structures.append(try ADStructure(type: type, data: data, at: offset))
        }
        self.init(structures: structures)
    }

    /// Why advertising data cannot be written.
    public enum EncodingError: Error, Hashable, Sendable, CustomStringConvertible {
        /// A UUID has no alias of the width its list or service data is written at (a custom 128-bit UUID in a
        /// 16-bit list).
        case uuidTooWide(BluetoothUUID, type: ADType)
        /// One structure's data exceeds the 254 bytes a length byte can describe.
        case structureTooLong(type: ADType, dataLength: Int)
        /// The whole exceeds the limit asked for (31 bytes for legacy advertising).
        case tooLong(length: Int, maximum: Int)

        public var description: String {
            switch self {
            case let .uuidTooWide(uuid, type): "\(uuid) cannot be written in \(type): it has no alias of that width"
            case let .structureTooLong(type, dataLength):
                "\(type) carries \(dataLength) bytes; one AD structure holds at most \(ADStructure.maximumDataLength)"
            case let .tooLong(length, maximum):
                "advertising data is \(length) bytes; at most \(maximum) fit (move structures to the scan response "
                    + "or use extended advertising)"
            }
        }
    }

    /// The wire bytes, checked against `maximumLength` (by default the 31-byte legacy limit; pass
    /// ``extendedMaximumLength`` for extended advertising).
    public func encoded(maximumLength: Int = legacyMaximumLength) throws(EncodingError) -> [UInt8] {
        var bytes: [UInt8] = []
        for structure in structures { bytes += try structure.encoded() }
        guard bytes.count <= maximumLength else { throw .tooLong(length: bytes.count, maximum: maximumLength) }
        return bytes
    }

    /// True when the data encodes and fits one legacy advertising PDU.
    public var fitsLegacyAdvertising: Bool { (try? encoded()) != nil }
}
