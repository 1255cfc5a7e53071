import BLECore
import DeviceProfiles

/// SPI NOR flash timing, from the Winbond W25Q128JV datasheet's AC Electrical Characteristics table, the
/// kind of part on ESP32 modules: page program tPP 0.4 ms typical (3 ms max) per 256-byte page, sector erase tSE
/// 45 ms typical per 4 KiB, 64 KiB block erase tBE2 150 ms typical. Reads run at the SPI bus speed: 80 MHz quad I/O
/// is 40 MB/s.
///
/// Where the erase happens matters: erasing sector by sector while frames arrive would cost 45 ms per 4 KiB, about
/// 91 kB/s — slower than the link (97.6 kB/s at 2M / 15 ms / 6 packets) and so the limit of a windowed transfer. Like
/// ESP-IDF's `esp_ota_begin` with a known image size, the model erases the image's whole region at START (in 64 KiB
/// blocks, 2.4 s per MiB), before it answers; during the transfer only page programs remain, 0.4 ms per ~256 bytes,
/// some 6 % of the flash's time at full link speed.
struct FlashTiming: Sendable, Hashable {
    var pageSize = 256
    var pageProgram: Duration = .microseconds(400)
    var sectorSize = 4_096
    var sectorErase: Duration = .milliseconds(45)
    var blockSize = 65_536
    var blockErase: Duration = .milliseconds(150)
    /// Bytes per second read back (80 MHz QIO).
    var readBytesPerSecond = 40_000_000.0

    /// Erasing `[offset, offset + length)` rounded out to sectors: whole 64 KiB blocks where they fit, sectors
    /// for the rest.
    func eraseDuration(offset: Int, length: Int) -> Duration {
        guard length > 0 else { return .zero }
        let start = offset / sectorSize * sectorSize
        let end = (offset + length + sectorSize - 1) / sectorSize * sectorSize
        let sectors = (end - start) / sectorSize
        let perBlock = blockSize / sectorSize
        return blockErase * (sectors / perBlock) + sectorErase * (sectors % perBlock)
    }

    /// Programming `length` bytes at `offset`: one page program per page touched.
    func programDuration(offset: Int, length: Int) -> Duration {
        guard length > 0 else { return .zero }
        let pages = (offset + length - 1) / pageSize - offset / pageSize + 1
        return pageProgram * pages
    }

    func readDuration(length: Int) -> Duration { .seconds(Double(length) / readBytesPerSecond) }
}

/// The esp-point's two app banks (ESP-IDF's `ota_0` and `ota_1` partitions) and `otadata`, which says which one
/// boots. Flash: all of it survives resets and power loss.
///
/// Each bank holds image bytes and a descriptor (ESP-IDF's image header and appended hash, reduced to size, CRC-32
/// and version): the bootloader starts a bank only when its descriptor is intact and the bytes match its CRC
/// (``bootableImage(in:)``). The factory image in bank A is a small one (``factoryImageSize`` bytes): only its
/// integrity matters to the model. A bank's bytes beyond what was ever written read as erased (0xFF).
struct FlashBanks: Sendable {
    /// The size of each app partition: 12 MiB, as on a 32 MB module (ESP32-S3-WROOM-2-N32R8V) with two OTA slots.
    static let bankCapacity = 12 * 1_048_576
    static let factoryImageSize = 4_096

    /// What a bank's descriptor says about its image.
    struct Descriptor: Sendable, Hashable {
        var size: UInt32
        var crc32: UInt32
        var version: FirmwareVersion

        static let magic: UInt32 = 0xE9_0A_7A_5E
        static let length = 20

        /// `magic u32, size u32, crc32 u32, major u8, minor u8, patch u16, crc32 of the 16 bytes before u32`.
        var encoded: [UInt8] {
            var bytes = le32(Self.magic) + le32(size) + le32(crc32)
            bytes += [version.major, version.minor, UInt8(version.patch & 0xFF), UInt8(version.patch >> 8)]
            return bytes + le32(CRC32.checksum(bytes))
        }

        /// Nil for an erased or torn descriptor.
        init?(decoding bytes: [UInt8]) {
            guard bytes.count >= Self.length, read32(bytes, 0) == Self.magic,
                CRC32.checksum(bytes[0..<16]) == read32(bytes, 16)
            else { return nil }
            size = read32(bytes, 4)
            crc32 = read32(bytes, 8)
            version = FirmwareVersion(bytes[12], bytes[13], UInt16(bytes[14]) | UInt16(bytes[15]) << 8)
        }

        init(size: UInt32, crc32: UInt32, version: FirmwareVersion) {
            self.size = size
            self.crc32 = crc32
            self.version = version
        }
    }

    /// What one app partition holds.
    struct Partition: Sendable {
        var bytes: [UInt8] = []
        var descriptor = [UInt8](repeating: 0xFF, count: Descriptor.length)
    }

    /// Indexed by ``AppBank/rawValue``.
    private var partitions = [Partition(), Partition()]
    /// `otadata`: which bank the bootloader picks.
    var otadata = OTAData()
    /// The bank the bootloader started this boot.
    var running = AppBank.a

    /// Bank A holds the factory image `factory`, bank B is erased, `otadata` is blank (so A boots).
    init(factory: FirmwareVersion) {
        var random = SeededRandom(seed: 0xFAC7_0123)
        let image = (0..<Self.factoryImageSize).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        partitions[AppBank.a.rawValue].bytes = image
        partitions[AppBank.a.rawValue].descriptor =
            Descriptor(size: UInt32(image.count), crc32: CRC32.checksum(image), version: factory).encoded
    }

    /// The bank an update writes: the one not running.
    var target: AppBank { running.other }

    /// The image of `bank` if the bootloader would start it: an intact descriptor and bytes that match its CRC.
    func bootableImage(in bank: AppBank) -> Descriptor? {
        guard let descriptor = Descriptor(decoding: partitions[bank.rawValue].descriptor) else { return nil }
        let size = Int(descriptor.size)
        guard size <= Self.bankCapacity, CRC32.checksum(read(bank, 0..<size)) == descriptor.crc32 else { return nil }
        return descriptor
    }

    // MARK: Raw flash

    /// The bytes of `region` at `range`, erased (0xFF) where never written.
    func read(_ region: FlashOperation.Region, _ range: Range<Int>) -> [UInt8] {
        switch region {
        case let .bank(bank): read(bank, range)
        case let .descriptor(bank):
            Array(partitions[bank.rawValue].descriptor[range.clamped(to: 0..<Descriptor.length)])
        case let .otadata(sector): Array(otadata.sectors[sector][range.clamped(to: 0..<OTAData.Entry.size)])
        }
    }

    /// Sets the bytes of `region` from `offset` (what an erase, a program or a tear leaves there).
    mutating func store(_ bytes: [UInt8], in region: FlashOperation.Region, at offset: Int) {
        switch region {
        case let .bank(bank):
            let end = offset + bytes.count
            if partitions[bank.rawValue].bytes.count < end {
                partitions[bank.rawValue].bytes += [UInt8](
                    repeating: 0xFF, count: end - partitions[bank.rawValue].bytes.count)
            }
            partitions[bank.rawValue].bytes.replaceSubrange(offset..<end, with: bytes)
        case let .descriptor(bank):
            partitions[bank.rawValue].descriptor.replaceSubrange(offset..<(offset + bytes.count), with: bytes)
        case let .otadata(sector):
            otadata.sectors[sector].replaceSubrange(offset..<(offset + bytes.count), with: bytes)
        }
    }

    private func read(_ bank: AppBank, _ range: Range<Int>) -> [UInt8] {
        let stored = partitions[bank.rawValue].bytes
        let inside = range.clamped(to: 0..<stored.count)
        var bytes = Array(stored[inside])
        if bytes.count < range.count { bytes += [UInt8](repeating: 0xFF, count: range.count - bytes.count) }
        return bytes
    }

    // MARK: The update's bank

    /// Programs `bytes` at `offset` of the target. NOR programming only clears bits: programming over data ANDs it.
    mutating func program<C: Collection<UInt8>>(_ bytes: C, at offset: Int) {
        let current = read(target, offset..<(offset + bytes.count))
        store(zip(current, bytes).map { $0 & $1 }, in: .bank(target), at: offset)
    }

    /// Flips one bit of the target's image (a worn cell, a disturbed page): verify then fails.
    mutating func corrupt(at offset: Int) {
        guard offset < partitions[target.rawValue].bytes.count else { return }
        partitions[target.rawValue].bytes[offset] ^= 0x10
    }

    /// The CRC-32 of the target's first `length` bytes as read back from flash.
    func crc(length: Int) -> UInt32 { CRC32.checksum(read(target, 0..<length)) }

    func bytes(_ range: Range<Int>) -> ArraySlice<UInt8> { read(target, range)[...] }

    /// How many bytes of the target were ever written (its materialised length).
    var targetExtent: Int { partitions[target.rawValue].bytes.count }
}

private func le32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }

private func read32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
    (0..<4).reduce(0) { $0 | UInt32(bytes[at + $1]) << (8 * $1) }
}
