/// Appends little-endian wire values to a byte buffer; the counterpart of ``ByteReader``.
public struct ByteWriter: Sendable {
    public private(set) var bytes: [UInt8]

    public init(capacity: Int = 32) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    public mutating func write(_ value: UInt8) { bytes.append(value) }
    public mutating func write(_ value: Int8) { bytes.append(UInt8(bitPattern: value)) }
    public mutating func write(_ value: UInt16) { writeLittleEndian(value) }
    public mutating func write(_ value: Int16) { writeLittleEndian(UInt16(bitPattern: value)) }
    public mutating func write(_ value: UInt32) { writeLittleEndian(value) }
    public mutating func write(_ value: Int32) { writeLittleEndian(UInt32(bitPattern: value)) }
    public mutating func write(_ value: UInt64) { writeLittleEndian(value) }
    public mutating func write(_ value: Int64) { writeLittleEndian(UInt64(bitPattern: value)) }

    /// Appends a big-endian integer, for the few formats that use network order (btsnoop captures).
    public mutating func writeBigEndian<T: FixedWidthInteger>(_ value: T) {
        var v = value.bigEndian
        withUnsafeBytes(of: &v) { bytes.append(contentsOf: $0) }
    }

    public mutating func writeUInt24(_ value: UInt32) {
        precondition(value <= 0xFF_FFFF, "u24 out of range")
        bytes.append(UInt8(truncatingIfNeeded: value))
        bytes.append(UInt8(truncatingIfNeeded: value >> 8))
        bytes.append(UInt8(truncatingIfNeeded: value >> 16))
    }

    public mutating func write<S: Sequence<UInt8>>(contentsOf data: S) { bytes.append(contentsOf: data) }

    private mutating func writeLittleEndian<T: FixedWidthInteger>(_ value: T) {
        var v = value.littleEndian
        withUnsafeBytes(of: &v) { bytes.append(contentsOf: $0) }
    }
}

extension Array where Element == UInt8 {
    /// Bytes from a hex string; spaces, colons and dashes are ignored. Nil when a digit is not hex or one is missing.
    public init?(hex: String) {
        let digits = hex.filter { !" :-\n\t".contains($0) }
        guard digits.count.isMultiple(of: 2) else { return nil }
        var result: [UInt8] = []
        result.reserveCapacity(digits.count / 2)
        var index = digits.startIndex
        while index < digits.endIndex {
            let next = digits.index(index, offsetBy: 2)
            // `UInt8(_:radix:)` alone would accept a sign ("+f"), so check the digits first.
            let pair = digits[index..<next]
            guard pair.allSatisfy(\.isASCIIHexDigit), let byte = UInt8(pair, radix: 16) else { return nil }
            result.append(byte)
            index = next
        }
        self = result
    }

    /// Lower-case hex with no separators: `0a1b`. Written as ASCII into the string's own storage, so a description
    /// that shows a payload costs one allocation, not a Character append per digit.
    public var hexString: String {
        String(unsafeUninitializedCapacity: count * 2) { out in
            var index = 0
            for byte in self {
                out[index] = hexDigit(byte >> 4)
                out[index + 1] = hexDigit(byte & 0x0F)
                index += 2
            }
            return index
        }
    }
}

/// The ASCII lower-case hex digit of a nibble (0...15).
private func hexDigit(_ nibble: UInt8) -> UInt8 {
    nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
}

extension Character {
    /// `0`–`9`, `a`–`f`, `A`–`F` only; `isHexDigit` also admits fullwidth forms that integer parsing rejects.
    var isASCIIHexDigit: Bool {
        guard let ascii = asciiValue else { return false }
        return (0x30...0x39).contains(ascii) || (0x41...0x46).contains(ascii) || (0x61...0x66).contains(ascii)
    }
}
