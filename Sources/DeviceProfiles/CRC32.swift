/// CRC-32/ISO-HDLC, the zlib and PNG CRC the device contract uses for OTA frames and images: polynomial
/// 0x04C11DB7 reflected (0xEDB88320), init 0xFFFFFFFF, xorout 0xFFFFFFFF; the check value for "123456789" is
/// 0xCBF43926 (docs/board-contract.md, "Conventions for every profile").
///
/// Incremental: feed an image in pieces (a file a window at a time, flash a frame at a time) and read ``value`` at
/// any point; the result equals the CRC of all the pieces concatenated.
public struct CRC32: Sendable, Hashable {
    /// The running register, before the final xor.
    private var register: UInt32 = 0xFFFF_FFFF

    public init() {}

    /// Resumes from a CRC of earlier bytes (what a board persists at every ACK).
    public init(resumingFrom value: UInt32) { register = value ^ 0xFFFF_FFFF }

    /// The CRC of everything fed so far.
    public var value: UInt32 { register ^ 0xFFFF_FFFF }

    public mutating func update<C: Collection<UInt8>>(_ bytes: C) {
        var crc = register
        let table = Self.table
        for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        register = crc
    }

    /// The CRC of `bytes`.
    public static func checksum<C: Collection<UInt8>>(_ bytes: C) -> UInt32 {
        var crc = CRC32()
        crc.update(bytes)
        return crc.value
    }

    private static let table: [UInt32] = (0..<256).map { n -> UInt32 in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }
}
