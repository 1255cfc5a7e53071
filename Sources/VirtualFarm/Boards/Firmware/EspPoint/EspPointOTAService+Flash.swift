import BLECore
import DeviceProfiles

/// The OTA's flash writes as the chip does them: each takes its time, and a power loss before it ends tears it
/// (``FlashOperation``, ``FlashTear``).
extension EspPointOTAService {
    /// Writes `bytes` to `region` at `offset` now and keeps the write as under way for `duration`: a power loss
    /// before it ends tears it (``powerLost()``). `erasing`: a sector erase comes first.
    func flashWrite(
        _ bytes: [UInt8], to region: FlashOperation.Region, at offset: Int, taking duration: Duration, erasing: Bool
    ) {
        guard let board else { return }
        let now = board.sim.now
        let old = flash.banks.read(region, offset..<(offset + bytes.count))
        flash.banks.store(bytes, in: region, at: offset)
        let share = erasing ? min(1, Self.flashTiming.sectorErase / duration) : 0
        flash.inFlight.add(
            FlashOperation(
                region: region, offset: offset, old: old, new: bytes, begin: now, end: now + duration,
                eraseShare: share, epoch: nil),
            now: now)
    }

    /// Erases the target from the sector holding `offset` to `end`, keeping the bytes before `offset` (read into
    /// RAM, erased with their sector, programmed again): what resuming mid-sector needs, since NOR flash is
    /// programmed once between erases. Until it ends, a power loss loses the kept bytes with the RAM copy. Returns
    /// when the flash is ready.
    func eraseTarget(from offset: Int, to end: Int) -> RigInstant {
        let timing = Self.flashTiming
        let now = board?.sim.now ?? .origin
        // Every frame persisted (the last one is short, so next_seq × max_payload passes the end): nothing to erase.
        guard offset < end else { return max(now, run.flashBusyUntil) }
        let start = offset / timing.sectorSize * timing.sectorSize
        let region = FlashOperation.Region.bank(flash.banks.target)
        var bytes = flash.banks.read(region, start..<end)
        for i in (offset - start)..<bytes.count { bytes[i] = 0xFF }
        let erase = timing.eraseDuration(offset: start, length: end - start)
        let program = timing.programDuration(offset: start, length: offset - start)
        let begin = max(now, run.flashBusyUntil)
        let old = flash.banks.read(region, start..<end)
        flash.banks.store(bytes, in: region, at: start)
        flash.inFlight.add(
            FlashOperation(
                region: region, offset: start, old: old, new: bytes, begin: begin, end: begin + erase + program,
                eraseShare: erase / (erase + program), epoch: nil),
            now: now)
        return begin + erase + program
    }

    /// The power went: the flash write under way (if any) is torn where it stood. Returns what was torn.
    func powerLost() -> [String] {
        guard let board else { return [] }
        let now = board.sim.now
        var random = board.random("power-loss")
        var torn: [String] = []
        for operation in flash.inFlight.interrupted(at: now) {
            if let epoch = operation.epoch, epoch != run.epoch { continue }
            let fraction = operation.begin.duration(to: now) / operation.begin.duration(to: operation.end)
            flash.banks.store(operation.torn(at: fraction, random: &random), in: operation.region, at: operation.offset)
            torn.append("\(operation.region) at \(Int(fraction * 100)) %")
        }
        return torn
    }
}
