/// A Bluetooth device address (BD_ADDR): 48 bits and whether it is public or random
/// (Core 5.4 Vol 6 Part B §1.3). Written most significant byte first, `24:0A:C4:12:1A:2B`; on the wire the
/// six bytes travel least significant first.
public struct DeviceAddress: Hashable, Sendable, Comparable {
    public enum Kind: UInt8, Sendable, Hashable {
        case `public` = 0x00
        case random = 0x01
    }

    /// The address as a 48-bit integer.
    public let value: UInt64
    public let kind: Kind

    public init(_ value: UInt64, kind: Kind = .public) {
        precondition(value >> 48 == 0, "a device address has 48 bits")
        self.value = value
        self.kind = kind
    }

    /// The six bytes most significant first, as written.
    public var bytes: [UInt8] { (0..<6).map { UInt8(truncatingIfNeeded: value >> (40 - 8 * $0)) } }

    /// The six bytes in wire order (least significant first).
    public var littleEndianBytes: [UInt8] { bytes.reversed() }

    public init(littleEndian bytes: some Collection<UInt8>, kind: Kind = .public) throws(DecodingError) {
        guard bytes.count == 6 else {
            throw .invalidValue(
                context: "device address", field: "length", reason: "\(bytes.count) bytes; expected 6", at: 0)
        }
        self.init(bytes.reversed().reduce(0) { $0 << 8 | UInt64($1) }, kind: kind)
    }

    /// For a random address, its sub-type from the two most significant bits (Vol 6 Part B §1.3.2).
    public enum RandomSubtype: Sendable { case staticDevice, resolvablePrivate, nonResolvablePrivate, reserved }
    public var randomSubtype: RandomSubtype? {
        guard kind == .random else { return nil }
        switch value >> 46 {
        case 0b11: return .staticDevice
        case 0b01: return .resolvablePrivate
        case 0b00: return .nonResolvablePrivate
        default: return .reserved
        }
    }

    public static func < (a: Self, b: Self) -> Bool { (a.value, a.kind.rawValue) < (b.value, b.kind.rawValue) }
}

extension DeviceAddress: CustomStringConvertible, LosslessStringConvertible {
    /// `24:0A:C4:12:1A:2B`, with ` (random)` appended for a random address.
    public var description: String {
        let text = bytes.map { b in (b < 16 ? "0" : "") + String(b, radix: 16, uppercase: true) }.joined(separator: ":")
        return kind == .random ? text + " (random)" : text
    }

    /// Parses `24:0A:C4:12:1A:2B` (or with dashes), optionally followed by ` (random)` or `/random`.
    public init?(_ text: String) {
        var body = Substring(text)
        var kind = Kind.public
        for suffix in [" (random)", "/random"] where body.hasSuffix(suffix) {
            body = body.dropLast(suffix.count)
            kind = .random
        }
        for suffix in [" (public)", "/public"] where body.hasSuffix(suffix) { body = body.dropLast(suffix.count) }
        let parts = body.split(separator: body.contains("-") ? "-" : ":", omittingEmptySubsequences: false)
        guard parts.count == 6 else { return nil }
        var value: UInt64 = 0
        for part in parts {
            guard part.count == 2, part.allSatisfy(\.isASCIIHexDigit), let byte = UInt8(part, radix: 16) else {
                return nil
            }
            value = value << 8 | UInt64(byte)
        }
        self.init(value, kind: kind)
    }
}
