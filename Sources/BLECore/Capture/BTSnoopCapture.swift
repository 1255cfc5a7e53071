extension BTSnoop {
    /// A btsnoop capture read back: its datalink and records. Only datalink 1002 (H4), the one this rig writes,
    /// is accepted.
    public struct Capture: Hashable, Sendable {
        public var datalink: Datalink
        public var records: [Record]

        public init(datalink: Datalink = .hciUART, records: [Record]) {
            self.datalink = datalink
            self.records = records
        }

        /// Parses a whole capture file. Throws ``FormatError`` for a short or foreign header, a version other than
        /// 1, a datalink other than 1002, or a record cut short or claiming more bytes than the packet had.
        public init(decoding bytes: some Collection<UInt8>) throws(FormatError) {
            let bytes = Array(bytes)
            guard bytes.count >= BTSnoop.fileHeaderLength else { throw .truncatedHeader(available: bytes.count) }
            let magic = Array(bytes[0..<8])
            guard magic == BTSnoop.magic else { throw .badMagic(magic) }
            let version = Self.bigEndianUInt32(bytes, at: 8)
            guard version == BTSnoop.version else { throw .unsupportedVersion(version) }
            datalink = Datalink(rawValue: Self.bigEndianUInt32(bytes, at: 12))
            guard datalink == .hciUART else { throw .unsupportedDatalink(datalink) }
            records = []
            var offset = BTSnoop.fileHeaderLength
            while offset < bytes.count {
                let index = records.count
                guard bytes.count - offset >= BTSnoop.recordHeaderLength else {
                    throw .truncatedRecord(
                        index: index, at: offset, needed: BTSnoop.recordHeaderLength, available: bytes.count - offset)
                }
                let original = Self.bigEndianUInt32(bytes, at: offset)
                let included = Self.bigEndianUInt32(bytes, at: offset + 4)
                guard included <= original else {
                    throw .includedExceedsOriginal(index: index, at: offset, included: included, original: original)
                }
                let dataStart = offset + BTSnoop.recordHeaderLength
                guard bytes.count - dataStart >= Int(included) else {
                    throw .truncatedRecord(
                        index: index, at: offset, needed: BTSnoop.recordHeaderLength + Int(included),
                        available: bytes.count - offset)
                }
                var record = Record(
                    flags: RecordFlags(rawValue: Self.bigEndianUInt32(bytes, at: offset + 8)),
                    cumulativeDrops: Self.bigEndianUInt32(bytes, at: offset + 12),
                    timestamp: Int64(bitPattern: Self.bigEndianUInt64(bytes, at: offset + 16)),
                    data: Array(bytes[dataStart..<(dataStart + Int(included))]))
                record.originalLength = original
                records.append(record)
                offset = dataStart + Int(included)
            }
        }

        /// The header followed by every record.
        public var encoded: [UInt8] { BTSnoop.fileHeader(datalink: datalink) + records.flatMap(\.encoded) }

        private static func bigEndianUInt32(_ bytes: [UInt8], at offset: Int) -> UInt32 {
            bytes[offset..<(offset + 4)].reduce(0) { $0 << 8 | UInt32($1) }
        }

        private static func bigEndianUInt64(_ bytes: [UInt8], at offset: Int) -> UInt64 {
            bytes[offset..<(offset + 8)].reduce(0) { $0 << 8 | UInt64($1) }
        }
    }

    /// Why bytes are not a btsnoop capture this rig can read.
    public enum FormatError: Error, Hashable, Sendable, CustomStringConvertible {
        /// Fewer than the 16 bytes of a file header.
        case truncatedHeader(available: Int)
        /// The first 8 bytes are not `btsnoop\0`.
        case badMagic([UInt8])
        /// A version other than 1.
        case unsupportedVersion(UInt32)
        /// A datalink other than 1002 (HCI UART/H4).
        case unsupportedDatalink(Datalink)
        /// Record `index` (0-based), starting at byte `at`, needs `needed` bytes but the file has `available` left.
        case truncatedRecord(index: Int, at: Int, needed: Int, available: Int)
        /// Record `index` claims to include more bytes than the packet had.
        case includedExceedsOriginal(index: Int, at: Int, included: UInt32, original: UInt32)

        public var description: String {
            switch self {
            case let .truncatedHeader(available):
                "btsnoop: the file has \(available) byte(s); a btsnoop header needs 16"
            case let .badMagic(magic):
                "btsnoop: the file starts with \(magic.hexString), not the magic \"btsnoop\\0\" (not a btsnoop file)"
            case let .unsupportedVersion(version): "btsnoop: version \(version) is not supported; expected 1"
            case let .unsupportedDatalink(datalink):
                "btsnoop: datalink \(datalink) is not supported; expected \(Datalink.hciUART)"
            case let .truncatedRecord(index, at, needed, available):
                "btsnoop: record \(index) at byte \(at) is truncated: it needs \(needed) byte(s), the file has "
                    + "\(available) left (was the capture still being written?)"
            case let .includedExceedsOriginal(index, at, included, original):
                "btsnoop: record \(index) at byte \(at) includes \(included) byte(s) of a \(original)-byte packet"
            }
        }
    }
}
