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
extension EspPointFirmware {
    /// Sector erase and page program of one `otadata` sector.
    static var otadataWrite: Duration { flashTiming.sectorErase + flashTiming.pageProgram }

    /// The second-stage bootloader picks the bank before the app's `BOOT` line.
    func bootloader(on board: VirtualBoard, reason: ConsoleLine.ResetReason) {
        self.board = board
        if let active = ota.banks.otadata.active {
            switch active.entry.state {
            case .new:
                rewriteOTAData(sector: active.sector, to: .pendingVerify)
            case .pendingVerify:
                rewriteOTAData(sector: active.sector, to: .aborted)
                ota.outcome = .rolledBack
                rollback(from: active.entry.bank, reason: "unconfirmed")
            default:
                break
            }
        }
        var chosen = ota.banks.otadata.selectedBank
        if ota.banks.bootableImage(in: chosen) == nil {
            if let active = ota.banks.otadata.active, active.entry.bank == chosen {
                rewriteOTAData(sector: active.sector, to: .invalid)
            }
            ota.outcome = .rolledBack
            rollback(from: chosen, reason: "invalid-image")
            chosen = 1 - chosen
        }
        guard let image = ota.banks.bootableImage(in: chosen) else {
            bootable = false
            board.print(.other("E boot: no bootable app image in bank A or B: the board cannot start"))
            return
        }
        bootable = true
        ota.banks.running = chosen
        version = image.version
        bank = ota.banks.runningName
    }

    private func rollback(from bank: Int, reason: String) {
        board?.print(.otaRollback(bank: FlashBanks.names[1 - bank], reason: reason))
    }

    /// Rewrites the entry of an `otadata` sector with `state`, in place (a sector erase and a page program).
    func rewriteOTAData(sector: Int, to state: OTAData.State) {
        guard let bytes = ota.banks.otadata.rewriting(sector: sector, to: state) else { return }
        flashWrite(bytes, to: .otadata(sector), at: 0, taking: Self.otadataWrite, erasing: true)
    }

    /// The app's self-test, early in its init: a pending image commits or rolls back. Returns false when the board
    /// is resetting into the old bank.
    func selfTestIfPending(on board: VirtualBoard) -> Bool {
        guard let active = ota.banks.otadata.active, active.entry.state == .pendingVerify,
            active.entry.bank == ota.banks.running
        else { return true }
        if ota.faults.selfTest {
            ota.faults.selfTest = false
            rewriteOTAData(sector: active.sector, to: .invalid)
            ota.outcome = .rolledBack
            board.log("E", "OTA", "self-test failed: fw=\(version)")
            rollback(from: active.entry.bank, reason: "selftest")
            board.reset(.software)
            return false
        }
        rewriteOTAData(sector: active.sector, to: .valid)
        ota.outcome = .committed
        board.print(.otaCommitted(bank: ota.banks.runningName, firmware: version))
        return true
    }

    // MARK: Console (test firmware only)

    /// `ota-fault crc|flash|corrupt|selftest|drop N|drop last|none` and `ota-key <64 hex digits>|none`.
    func otaConsoleCommand(_ words: [Substring]) -> Bool {
        guard let board else { return false }
        switch words.first {
        case "ota-fault":
            let what = words.dropFirst().joined(separator: " ")
            switch what {
            case "crc": ota.faults.crc = true
            case "flash": ota.faults.flashWrite = true
            case "corrupt": ota.faults.corruptBank = true
            case "selftest": ota.faults.selfTest = true
            case "drop last": ota.faults.dropBeforeLast = true
            case "none": ota.faults = OTAFaults()
            default:
                if words.count == 3, words[1] == "drop", let n = Int(words[2]), n >= 0 {
                    ota.faults.dropAfterFrames = n
                } else {
                    board.log("W", "CONSOLE", "usage: ota-fault crc|flash|corrupt|selftest|drop N|drop last|none")
                    return true
                }
            }
            board.log("I", "OTA", "fault armed: \(what)")
        case "ota-key":
            if words.count == 2, words[1] == "none" {
                ota.signingKey = nil
                board.log("I", "OTA", "signing key cleared: images are not checked for a signature")
            } else if words.count == 2, let key = hexBytes(words[1]), key.count == 32 {
                ota.signingKey = key
                board.log("I", "OTA", "signing key set: images must carry an Ed25519 signature")
            } else {
                board.log("W", "CONSOLE", "usage: ota-key <64 hex digits>|none")
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
