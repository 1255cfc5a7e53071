import DeviceProfiles

/// ESP-IDF's `otadata` partition, which tells the second-stage bootloader which app bank to start: two flash
/// sectors, each holding one select entry (`esp_ota_select_entry_t`: `ota_seq`, `ota_state`, a CRC). The bootloader
/// reads both and takes the entry with the highest `ota_seq` whose CRC holds and whose state is not `invalid` or
/// `aborted`; `ota_seq − 1` modulo the bank count names the bank. With no such entry it starts bank A (`ota_0`).
///
/// Bytes, not fields, are what the model keeps: a write is an erase and a program of one sector, and a power loss
/// during it leaves that sector torn (``FlashTear``), so its CRC fails and the bootloader falls back to the other
/// sector. Switching banks writes the sector that does *not* hold the active entry; state changes of the running
/// entry (pending verify, valid, invalid, aborted) rewrite the active sector in place, as ESP-IDF's
/// `esp_ota_mark_app_valid_cancel_rollback` does.
struct OTAData: Sendable, Hashable {
    /// `esp_ota_img_states_t`.
    enum State: UInt32, Sendable {
        case new = 0
        case pendingVerify = 1
        case valid = 2
        case invalid = 3
        case aborted = 4
        /// An entry written without rollback support: bootable.
        case undefined = 0xFFFF_FFFF
    }

    /// One select entry: `ota_seq u32, ota_state u32, crc32 u32` (the CRC over the first eight bytes).
    struct Entry: Sendable, Hashable {
        var seq: UInt32
        var state: State

        static let size = 12

        /// The bank the entry starts: `(ota_seq − 1) mod 2`.
        var bank: AppBank { AppBank(rawValue: Int((seq &- 1) % 2))! }

        /// Whether the bootloader may start it.
        var bootable: Bool { state != .invalid && state != .aborted }

        var encoded: [UInt8] {
            var bytes = Self.le32(seq) + Self.le32(state.rawValue)
            bytes += Self.le32(CRC32.checksum(bytes))
            return bytes
        }

        /// Nil for an erased or torn sector (a CRC that fails, `ota_seq` 0 or all ones, an unknown state).
        init?(decoding bytes: [UInt8]) {
            guard bytes.count >= Self.size else { return nil }
            let seq = Self.read32(bytes, 0)
            let crc = Self.read32(bytes, 8)
            guard seq != 0, seq != .max, CRC32.checksum(bytes[0..<8]) == crc,
                let state = State(rawValue: Self.read32(bytes, 4))
            else { return nil }
            self.init(seq: seq, state: state)
        }

        init(seq: UInt32, state: State) {
            self.seq = seq
            self.state = state
        }

        private static func le32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }

        private static func read32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
            (0..<4).reduce(0) { $0 | UInt32(bytes[at + $1]) << (8 * $1) }
        }
    }

    static let erasedSector = [UInt8](repeating: 0xFF, count: Entry.size)

    /// The two sectors' first bytes, as the flash holds them (erased: 0xFF).
    var sectors: [[UInt8]] = [erasedSector, erasedSector]

    /// The entry the bootloader takes and its sector: the highest `ota_seq` among intact, bootable entries.
    var active: (sector: Int, entry: Entry)? {
        var best: (sector: Int, entry: Entry)?
        for sector in 0..<2 {
            guard let entry = Entry(decoding: sectors[sector]), entry.bootable else { continue }
            if best == nil || entry.seq > best!.entry.seq { best = (sector, entry) }
        }
        return best
    }

    /// The highest intact entry of either sector, bootable or not (the one a pending-verify check looks at).
    var newest: (sector: Int, entry: Entry)? {
        var best: (sector: Int, entry: Entry)?
        for sector in 0..<2 {
            guard let entry = Entry(decoding: sectors[sector]) else { continue }
            if best == nil || entry.seq > best!.entry.seq { best = (sector, entry) }
        }
        return best
    }

    /// The bank the bootloader starts from this otadata, before the image check: the active entry's; with none, the
    /// other bank than the newest refused (aborted, invalid) entry's; with no intact entry at all, bank A.
    var selectedBank: AppBank {
        if let active { return active.entry.bank }
        if let newest { return newest.entry.bank.other }
        return .a
    }

    /// The entry that makes `bank` boot next, in state `new`: `ota_seq` the smallest above every intact entry that
    /// names `bank`, written to the sector that does not hold the active entry. Returns the sector and its bytes.
    func switching(to bank: AppBank) -> (sector: Int, bytes: [UInt8]) {
        let top = (0..<2).compactMap { Entry(decoding: sectors[$0])?.seq }.max() ?? 0
        var seq = top + 1
        if Int((seq - 1) % 2) != bank.rawValue { seq += 1 }
        let sector = active.map { 1 - $0.sector } ?? 0
        return (sector, Entry(seq: seq, state: .new).encoded)
    }

    /// The entry in `sector` rewritten in place with `state`.
    func rewriting(sector: Int, to state: State) -> [UInt8]? {
        guard var entry = Entry(decoding: sectors[sector]) else { return nil }
        entry.state = state
        return entry.encoded
    }
}
