import BLECore
import DeviceProfiles

/// The esp-point's bootloader and the new image's self-test (docs/board-contract.md, esp-point "OTA": ACTIVATE reboots
/// into the new bank as "pending verify"; if it passes its self-test it is committed, otherwise the bootloader rolls
/// back), and the OTA console commands of the test firmware.
///
/// The bootloader reads `otadata` (``OTAData``: two sectors, the intact bootable entry with the highest sequence
/// wins) and checks the chosen bank's image against its descriptor before starting it (``FlashBanks``). An entry in
/// state `new` is rewritten "pending verify" and boots once; one found still pending (power lost during the
/// self-test, a crash) is rewritten "aborted" and the other bank boots; a bank whose image fails its check is marked
/// invalid and the other bank boots. A board with no intact image in either bank does not boot at all (no `BOOT`
/// line): that is a bricked board, which the model must never reach.
extension EspPointOTAService {
    /// Sector erase and page program of one `otadata` sector.
    static var otadataWrite: Duration { flashTiming.sectorErase + flashTiming.pageProgram }

    /// The second-stage bootloader picks the bank before the app's `BOOT` line.
    func bootloader(on board: VirtualBoard, reason: ConsoleLine.ResetReason) {
        self.board = board
        if let active = flash.banks.otadata.active {
            switch active.entry.state {
            case .new:
                rewriteOTAData(sector: active.sector, to: .pendingVerify)
            case .pendingVerify:
                rewriteOTAData(sector: active.sector, to: .aborted)
                flash.outcome = .rolledBack
                rollback(from: active.entry.bank, reason: "unconfirmed")
            default:
                break
            }
        }
        var chosen = flash.banks.otadata.selectedBank
        if flash.banks.bootableImage(in: chosen) == nil {
            if let active = flash.banks.otadata.active, active.entry.bank == chosen {
                rewriteOTAData(sector: active.sector, to: .invalid)
            }
            flash.outcome = .rolledBack
            rollback(from: chosen, reason: "invalid-image")
            chosen = chosen.other
        }
        guard let image = flash.banks.bootableImage(in: chosen) else {
            bootable = false
            board.print(.other("E boot: no bootable app image in bank A or B: the board cannot start"))
            return
        }
        bootable = true
        flash.banks.running = chosen
        version = image.version
    }

    private func rollback(from bank: AppBank, reason: String) {
        board?.print(.otaRollback(bank: bank.other.name, reason: reason))
    }

    /// Rewrites the entry of an `otadata` sector with `state`, in place (a sector erase and a page program).
    func rewriteOTAData(sector: Int, to state: OTAData.State) {
        guard let bytes = flash.banks.otadata.rewriting(sector: sector, to: state) else { return }
        flashWrite(bytes, to: .otadata(sector), at: 0, taking: Self.otadataWrite, erasing: true)
    }

    /// The app's self-test, early in its init: a pending image commits or rolls back. Returns false when the board
    /// is resetting into the old bank.
    func selfTestIfPending(on board: VirtualBoard) -> Bool {
        guard let active = flash.banks.otadata.active, active.entry.state == .pendingVerify,
            active.entry.bank == flash.banks.running
        else { return true }
        if flash.faults.selfTest {
            flash.faults.selfTest = false
            rewriteOTAData(sector: active.sector, to: .invalid)
            flash.outcome = .rolledBack
            board.log(.error, "OTA", "self-test failed: fw=\(version)")
            rollback(from: active.entry.bank, reason: "selftest")
            board.reset(.software)
            return false
        }
        rewriteOTAData(sector: active.sector, to: .valid)
        flash.outcome = .committed
        board.print(.otaCommitted(bank: flash.banks.running.name, firmware: version))
        return true
    }

    // MARK: Console (test firmware only)

    /// `ota-fault crc [N]|flash|corrupt|selftest|drop N|drop last|none` and `ota-key <64 hex digits>|none`.
    func consoleCommand(_ words: [Substring]) -> Bool {
        guard let board else { return false }
        switch words.first {
        case "ota-fault":
            let what = words.dropFirst().joined(separator: " ")
            switch what {
            case "crc": flash.faults.crcAfterFrames = 0
            case "flash": flash.faults.flashWrite = true
            case "corrupt": flash.faults.corruptBank = true
            case "selftest": flash.faults.selfTest = true
            case "drop last": flash.faults.dropBeforeLast = true
            case "none": flash.faults = OTAFaults()
            default:
                // `drop N` and `crc N`: the fault lands on the frame after N more.
                let frames = words.count == 3 ? Int(words[2]).flatMap { $0 >= 0 ? $0 : nil } : nil
                switch (words.dropFirst().first, frames) {
                case let ("drop", n?): flash.faults.dropAfterFrames = n
                case let ("crc", n?): flash.faults.crcAfterFrames = n
                default:
                    board.log(
                        .warning, "CONSOLE", "usage: ota-fault crc [N]|flash|corrupt|selftest|drop N|drop last|none")
                    return true
                }
            }
            board.log(.info, "OTA", "fault armed: \(what)")
        case "ota-key":
            if words.count == 2, words[1] == "none" {
                flash.signingKey = nil
                board.log(.info, "OTA", "signing key cleared: images are not checked for a signature")
            } else if words.count == 2, let key = hexBytes(words[1]), key.count == 32 {
                flash.signingKey = key
                board.log(.info, "OTA", "signing key set: images must carry an Ed25519 signature")
            } else {
                board.log(.warning, "CONSOLE", "usage: ota-key <64 hex digits>|none")
            }
        default:
            return false
        }
        return true
    }
}

private func hexBytes(_ text: Substring) -> [UInt8]? {
    let digits = Array(text.utf8)
    guard digits.count % 2 == 0 else { return nil }
    var bytes: [UInt8] = []
    for i in stride(from: 0, to: digits.count, by: 2) {
        guard let byte = UInt8(String(decoding: digits[i..<(i + 2)], as: UTF8.self), radix: 16) else { return nil }
        bytes.append(byte)
    }
    return bytes
}
