/// A Bluetooth UUID. 16- and 32-bit UUIDs are aliases of 128-bit UUIDs built on the Bluetooth Base UUID
/// `00000000-0000-1000-8000-00805F9B34FB` (Core 5.4 Vol 3 Part B §2.5.1); two UUIDs are equal when their
/// 128-bit forms are, whatever width they were written in.
public struct BluetoothUUID: Hashable, Sendable, Comparable {
    /// The 128-bit value, most significant half first (the order the UUID is written in).
    public let high: UInt64
    public let low: UInt64

    static let baseHigh: UInt64 = 0x0000_0000_0000_1000
    static let baseLow: UInt64 = 0x8000_0080_5F9B_34FB

    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// A 16-bit UUID such as `0x180A`.
    public init(_ short: UInt16) { self.init(uint32: UInt32(short)) }

    /// A 32-bit UUID.
    public init(uint32 value: UInt32) {
        self.init(high: UInt64(value) << 32 | Self.baseHigh, low: Self.baseLow)
    }

    /// True when this UUID is an alias built on the Bluetooth Base UUID.
    public var isBaseAlias: Bool { high & 0xFFFF_FFFF == Self.baseHigh && low == Self.baseLow }

    /// The 16-bit alias, when this UUID has one.
    public var uint16: UInt16? {
        guard isBaseAlias, high >> 48 == 0 else { return nil }
        return UInt16(truncatingIfNeeded: high >> 32)
    }

    /// The 32-bit alias, when this UUID has one (every 16-bit alias has one too).
    public var uint32: UInt32? {
        guard isBaseAlias else { return nil }
        return UInt32(truncatingIfNeeded: high >> 32)
    }

    /// The shortest width (2, 4 or 16 bytes) this UUID can be written in.
    public var compactWidth: Int { uint16 != nil ? 2 : (uint32 != nil ? 4 : 16) }

    /// The 16 bytes of the 128-bit form, most significant first.
    public var bigEndianBytes: [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: high >> (56 - 8 * $0)) }
            + (0..<8).map { UInt8(truncatingIfNeeded: low >> (56 - 8 * $0)) }
    }

    /// Little-endian wire bytes at a given width (2, 4 or 16). Nil when this UUID has no alias of that width.
    public func littleEndianBytes(width: Int) -> [UInt8]? {
        switch width {
        case 2: uint16.map { [UInt8(truncatingIfNeeded: $0), UInt8(truncatingIfNeeded: $0 >> 8)] }
        case 4: uint32.map { v in (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
        case 16: bigEndianBytes.reversed()
        default: nil
        }
    }

    /// Little-endian wire bytes at the shortest width ATT allows (2 or 16; ATT has no 32-bit form).
    public var attBytes: [UInt8] { littleEndianBytes(width: uint16 != nil ? 2 : 16)! }

    /// Decodes a little-endian UUID of 2, 4 or 16 bytes.
    public init(littleEndian bytes: some Collection<UInt8>) throws(DecodingError) {
        let value = Array(bytes)
        switch value.count {
        case 2: self.init(UInt16(value[0]) | UInt16(value[1]) << 8)
        case 4: self.init(uint32: value.reversed().reduce(0) { $0 << 8 | UInt32($1) })
        case 16:
            let be = Array(value.reversed())
            self.init(
                high: be[0..<8].reduce(0) { $0 << 8 | UInt64($1) },
                low: be[8..<16].reduce(0) { $0 << 8 | UInt64($1) })
        default:
            throw .invalidValue(
                context: "UUID", field: "length", reason: "\(value.count) bytes; expected 2, 4 or 16", at: 0)
        }
    }

    public static func < (a: Self, b: Self) -> Bool { (a.high, a.low) < (b.high, b.low) }
}

extension BluetoothUUID: CustomStringConvertible, LosslessStringConvertible {
    /// `180A` for a 16-bit alias, `0001180A` for a 32-bit one, else the canonical lower-case 8-4-4-4-12 form.
    public var description: String {
        if let short = uint16 { return hex(UInt64(short), digits: 4) }
        if let value = uint32 { return hex(UInt64(value), digits: 8) }
        let h = hex(high, digits: 16), l = hex(low, digits: 16)
        return "\(h.prefix(8))-\(h.dropFirst(8).prefix(4))-\(h.suffix(4))-\(l.prefix(4))-\(l.suffix(12))".lowercased()
    }

    /// Parses `180A`, `0x180a`, a 32-bit `0000180A`, or a full 128-bit UUID with or without dashes.
    public init?(_ text: String) {
        var digits = Substring(text.trimmingCharacters(in: " "))
        if digits.hasPrefix("0x") || digits.hasPrefix("0X") { digits = digits.dropFirst(2) }
        let isDashed = digits.count == 36
        if isDashed {
            let dashOffsets = [8, 13, 18, 23]
            for (i, ch) in digits.enumerated() where dashOffsets.contains(i) != (ch == "-") { return nil }
            digits = Substring(digits.filter { $0 != "-" })
        }
        // ASCII only: `isHexDigit` admits fullwidth digits, which the integer parsers below would reject.
        guard digits.allSatisfy(\.isASCIIHexDigit) else { return nil }
        switch digits.count {
        case 4: self.init(UInt16(digits, radix: 16)!)
        case 8 where !isDashed: self.init(uint32: UInt32(digits, radix: 16)!)
        case 32:
            self.init(high: UInt64(digits.prefix(16), radix: 16)!, low: UInt64(digits.suffix(16), radix: 16)!)
        default: return nil
        }
    }
}

private func hex(_ value: UInt64, digits: Int) -> String {
    let s = String(value, radix: 16, uppercase: true)
    return String(repeating: "0", count: max(0, digits - s.count)) + s
}

extension String {
    fileprivate func trimmingCharacters(in set: Character) -> Substring {
        var s = Substring(self)
        while s.first == set { s.removeFirst() }
        while s.last == set { s.removeLast() }
        return s
    }
}
