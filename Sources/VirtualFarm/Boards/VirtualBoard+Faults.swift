import BLECore

/// Faults a campaign inflicts on a board from outside (``OTAFaultInjector``): what the air, the power or the flash
/// can do to a real board, never a shortcut into its state.
extension VirtualBoard {
    /// The board closes every link at once (as a radio that lost sync): the central sees the link drop.
    public func dropLinks() {
        sim.assertIsolated()
        disconnectAll(reason: .connectionTimeout)
    }

    /// Flips one bit, chosen by `random`, of what an update has programmed so far into the bank it writes (an
    /// esp-point's). Returns the byte's offset, or nil when nothing is programmed yet or the board has no banks.
    public func flipBitInUpdateBank(_ random: inout SeededRandom) -> Int? {
        sim.assertIsolated()
        guard let esp = firmware as? EspPointFirmware else { return nil }
        return esp.flipBitInUpdate(&random)
    }

    /// Powered, and the bootloader found no intact image to start: the board will never advertise.
    public var isBricked: Bool { isPowered && !firmware.bootable }
}

extension EspPointFirmware {
    /// A bit flip in the programmed part of the update's bank.
    func flipBitInUpdate(_ random: inout SeededRandom) -> Int? {
        guard let record = ota.flash.record else { return nil }
        let written = record.verified ? Int(record.start.size) : Int(ota.run.flashedSeq) * record.maxPayload
        let length = min(written, Int(record.start.size))
        guard length > 0 else { return nil }
        let offset = Int(random.next() % UInt64(length))
        let bank = ota.flash.banks.target
        var byte = ota.flash.banks.read(.bank(bank), offset..<(offset + 1))
        byte[0] ^= UInt8(1) << (random.next() % 8)
        ota.flash.banks.store(byte, in: .bank(bank), at: offset)
        return offset
    }
}
