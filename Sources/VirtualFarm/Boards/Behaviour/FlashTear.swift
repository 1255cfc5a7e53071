import BLECore

/// One write the flash chip is busy with: an erase, a program, or an erase then a program (a sector rewritten),
/// over `[begin, end)`. The firmware keeps a list of them (``FlashOperations``); when the power goes, the one under
/// way is torn: what the region holds then is part old, part new, with the cells at the cut in between.
struct FlashOperation: Sendable {
    /// Which flash the operation writes.
    enum Region: Sendable, Hashable, CustomStringConvertible {
        /// An app bank's image bytes.
        case bank(AppBank)
        /// An app bank's image descriptor (its header: size, CRC, version).
        case descriptor(AppBank)
        /// One of the two `otadata` sectors.
        case otadata(Int)

        var description: String {
            switch self {
            case let .bank(bank): "bank \(bank.name) image"
            case let .descriptor(bank): "bank \(bank.name) descriptor"
            case let .otadata(sector): "otadata sector \(sector)"
            }
        }
    }

    var region: Region
    var offset: Int
    /// The region's bytes before and after the operation.
    var old: [UInt8]
    var new: [UInt8]
    var begin: RigInstant
    var end: RigInstant
    /// The share of the operation's time spent erasing before the program starts (1 for a plain erase, 0 for a plain
    /// program).
    var eraseShare: Double
    /// For a frame's page program: the OTA epoch it belongs to (a voided program is never torn into flash).
    var epoch: Int?

    /// The bytes the region holds when the power goes `fraction` of the way through.
    func torn(at fraction: Double, random: inout SeededRandom) -> [UInt8] {
        FlashTear.torn(old: old, new: new, fraction: fraction, eraseShare: eraseShare, random: &random)
    }
}

/// How a NOR flash write ends when its power goes: erasing sets bits to 1, programming clears them, and both go
/// through the region in order, so a cut leaves the part before it done, the part after it untouched, and the cells
/// at the cut half-way (any mix of the old and new bits).
enum FlashTear {
    /// Cells around the cut that are left half-way.
    static let unstableCells = 16

    static func torn(
        old: [UInt8], new: [UInt8], fraction: Double, eraseShare: Double, random: inout SeededRandom
    ) -> [UInt8] {
        let count = max(old.count, new.count)
        let old = old + [UInt8](repeating: 0xFF, count: count - old.count)
        let new = new + [UInt8](repeating: 0xFF, count: count - new.count)
        let erased = [UInt8](repeating: 0xFF, count: count)
        let fraction = min(max(fraction, 0), 1)
        if eraseShare > 0, fraction < eraseShare {
            // Still erasing: old bytes turn to 0xFF up to the cut.
            return cut(from: old, to: erased, at: fraction / eraseShare, random: &random)
        }
        let programmed = eraseShare >= 1 ? 1 : (fraction - eraseShare) / (1 - eraseShare)
        let start = eraseShare > 0 ? erased : old
        return cut(from: start, to: new, at: programmed, random: &random)
    }

    /// `from` up to the cut replaced by `to`; each bit of the cells at the cut is either its old or its new value.
    private static func cut(from: [UInt8], to: [UInt8], at fraction: Double, random: inout SeededRandom) -> [UInt8] {
        let count = from.count
        let at = Int((Double(count) * fraction).rounded(.down))
        var bytes = from
        for i in 0..<min(at, count) { bytes[i] = to[i] }
        for i in at..<min(at + unstableCells, count) {
            let noise = UInt8(truncatingIfNeeded: random.next())
            bytes[i] = (from[i] & ~noise) | (to[i] & noise)
        }
        return bytes
    }
}

/// The flash writes under way and queued, so that a power loss can tear the one it interrupts.
struct FlashOperations: Sendable {
    private(set) var operations: [FlashOperation] = []

    /// Records an operation; finished ones are forgotten.
    mutating func add(_ operation: FlashOperation, now: RigInstant) {
        operations.removeAll { $0.end <= now }
        operations.append(operation)
    }

    /// The operations under way at `now` (begun, not ended); forgets all of them: the power is gone.
    mutating func interrupted(at now: RigInstant) -> [FlashOperation] {
        defer { operations = [] }
        return operations.filter { $0.begin <= now && now < $0.end }
    }
}
