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
/// Bank contents are modelled byte for byte only for the bank an update writes: the factory image is not
/// materialised (nothing reads it), so the model costs the image size in memory, once.
struct FlashBanks: Sendable {
    /// The size of each app partition: 12 MiB, as on a 32 MB module (ESP32-S3-WROOM-2-N32R8V) with two OTA slots.
    static let bankCapacity = 12 * 1_048_576
    static let names = ["A", "B"]

    /// The firmware each bank holds once written and verified (nil while empty or being written).
    var firmware: [FirmwareVersion?]
    /// The bank the bootloader starts.
    var running = 0
    /// `otadata` names the other bank as "pending verify": the next boot tries it once.
    var pending: (bank: Int, version: FirmwareVersion)?
    /// The pending bank was booted and has not confirmed itself yet (a boot that finds this rolls back).
    var pendingAttempted = false
    /// The bytes of the bank an update writes, erased (0xFF) where not yet programmed.
    private(set) var image: [UInt8] = []
    /// How far the bank's image region was erased.
    private(set) var erasedLength = 0

    init(factory: FirmwareVersion) { firmware = [factory, nil] }

    var target: Int { 1 - running }
    var runningName: String { Self.names[running] }
    var targetName: String { Self.names[target] }

    /// Erases the target bank's first `length` bytes (the update's region); the bank no longer holds a firmware.
    mutating func eraseTarget(length: Int) {
        firmware[target] = nil
        image = [UInt8](repeating: 0xFF, count: length)
        erasedLength = length
    }

    /// Erases the target from the sector holding `offset` to the end of the region, keeping the bytes before
    /// `offset` (read back into RAM, erased, programmed again): what resuming mid-sector needs, since NOR flash
    /// can only be programmed once between erases. Returns the bytes erased.
    mutating func eraseTarget(from offset: Int, sectorSize: Int) -> Int {
        let start = offset / sectorSize * sectorSize
        guard start < image.count else { return 0 }
        for i in offset..<image.count { image[i] = 0xFF }
        return image.count - start
    }

    /// Programs `bytes` at `offset`. NOR programming only clears bits: programming over data ANDs it.
    mutating func program<C: Collection<UInt8>>(_ bytes: C, at offset: Int) {
        var i = offset
        for byte in bytes where i < image.count {
            image[i] &= byte
            i += 1
        }
    }

    /// Flips one bit of the written image (a worn cell, a disturbed page): verify then fails.
    mutating func corrupt(at offset: Int) {
        guard offset < image.count else { return }
        image[offset] ^= 0x10
    }

    /// The CRC-32 of the image's first `length` bytes as read back from flash.
    func crc(length: Int) -> UInt32 { CRC32.checksum(image.prefix(length)) }

    func bytes(_ range: Range<Int>) -> ArraySlice<UInt8> { image[range.clamped(to: 0..<image.count)] }
}
