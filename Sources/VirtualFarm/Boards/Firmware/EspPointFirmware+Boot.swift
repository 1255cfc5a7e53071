import BLECore
import DeviceProfiles

/// The esp-point's bootloader and the new image's self-test (docs/board-contract.md, esp-point "OTA": ACTIVATE reboots
/// into the new bank as "pending verify"; if it passes its self-test it is committed, otherwise the bootloader rolls
/// back), and the OTA console commands of the test firmware.
///
/// The bootloader always keeps a bootable bank: `otadata` names a pending bank only once its image is verified, a
/// pending bank boots once, and a boot that finds it already tried and never confirmed (power lost during the
/// self-test, a crash) rolls back to the bank that ran before.
extension EspPointFirmware {
    /// The second-stage bootloader picks the bank before the app's `BOOT` line.
    func bootloader(on board: VirtualBoard, reason: ConsoleLine.ResetReason) {
        self.board = board
        if let pending = ota.banks.pending {
            if ota.banks.pendingAttempted {
                ota.banks.pending = nil
                ota.banks.pendingAttempted = false
                ota.banks.firmware[pending.bank] = nil
                ota.banks.running = 1 - pending.bank
                ota.outcome = .rolledBack
                board.print(.otaRollback(bank: ota.banks.runningName, reason: "unconfirmed"))
            } else {
                ota.banks.pendingAttempted = true
                ota.banks.running = pending.bank
            }
        }
        version = ota.banks.firmware[ota.banks.running] ?? version
        bank = ota.banks.runningName
    }

    /// The app's self-test, early in its init: a pending image commits or rolls back. Returns false when the board
    /// is resetting into the old bank.
    func selfTestIfPending(on board: VirtualBoard) -> Bool {
        guard let pending = ota.banks.pending, pending.bank == ota.banks.running else { return true }
        ota.banks.pending = nil
        ota.banks.pendingAttempted = false
        if ota.faults.selfTest {
            ota.faults.selfTest = false
            ota.banks.firmware[pending.bank] = nil
            ota.banks.running = 1 - pending.bank
            ota.outcome = .rolledBack
            board.log("E", "OTA", "self-test failed: fw=\(pending.version)")
            board.print(.otaRollback(bank: ota.banks.runningName, reason: "selftest"))
            board.reset(.software)
            return false
        }
        ota.outcome = .committed
        board.print(.otaCommitted(bank: ota.banks.runningName, firmware: pending.version))
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
