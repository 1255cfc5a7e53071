import BLECore
import Crypto
import DeviceProfiles

/// FINISH (the bank read back and checked) and ACTIVATE (`otadata` switched, then a reboot into "pending verify").
extension EspPointOTAService {
    /// FINISH: reads the bank back and checks size, CRC, flash and (with a key) the signature; answers after the
    /// read. Any failure drops the update, so uploading again starts at 0.
    func finish() {
        guard let board else { return }
        guard var record = flash.record else {
            board.log(.warning, "OTA", "finish: no update in progress")
            return notifyOTA(.finishResult(.sizeMismatch))
        }
        if record.verified { return notifyOTA(.finishResult(.ok)) }
        guard record.nextSeq == record.frames else {
            board.log(.warning, "OTA", "finish: \(record.nextSeq) of \(record.frames) frames written")
            return notifyOTA(.finishResult(.sizeMismatch))
        }
        let size = Int(record.start.size)
        let now = board.sim.now
        let done = max(now, run.flashBusyUntil) + Self.flashTiming.readDuration(length: size)
        run.flashBusyUntil = done
        let epoch = run.epoch
        board.at(done) { [weak self] in
            guard let self, run.epoch == epoch else { return }
            let status: OTA.FinishStatus
            if record.crc != record.start.crc32 {
                status = .crcMismatch
            } else if flash.banks.crc(length: size) != record.start.crc32 {
                status = .flashVerifyFailed
            } else if let key = flash.signingKey, !Self.signatureValid(flash.banks.bytes(0..<size), key: key) {
                status = .badSignature
            } else {
                status = .ok
            }
            if status == .ok {
                record.verified = true
                flash.record = record
                let descriptor = FlashBanks.Descriptor(
                    size: record.start.size, crc32: record.start.crc32, version: record.start.version)
                flashWrite(
                    descriptor.encoded, to: .descriptor(flash.banks.target), at: 0,
                    taking: Self.flashTiming.pageProgram, erasing: false)
                flash.last = (record.start.size, record.start.crc32)
                self.board?.log(
                    .info, "OTA", "finish ok: bank=\(flash.banks.target.name) fw=\(record.start.version) verified")
            } else {
                flash.record = nil
                self.board?.log(.error, "OTA", "finish failed: \(status); the update is dropped (upload again)")
                self.board?.refreshAdvertising()
            }
            notifyOTA(.finishResult(status))
        }
    }

    /// The image's last 64 bytes are an Ed25519 signature of the bytes before them.
    static func signatureValid(_ image: ArraySlice<UInt8>, key: [UInt8]) -> Bool {
        guard image.count > 64, let publicKey = try? Curve25519.Signing.PublicKey(rawRepresentation: key) else {
            return false
        }
        let split = image.endIndex - 64
        return publicKey.isValidSignature(Array(image[split...]), for: Array(image[..<split]))
    }

    /// ACTIVATE: writes `otadata` to boot the verified bank once as "pending verify" (a sector erase and a page
    /// program), then reboots. Refused with 0x13 when no verified image waits.
    func activate() -> ATT.ErrorCode? {
        guard let board, let record = flash.record, record.verified else {
            board?.log(.warning, "OTA", "activate refused: no verified image")
            return .valueNotAllowed
        }
        guard !run.activating else { return nil }
        run.activating = true
        board.log(.info, "OTA", "activate bank=\(flash.banks.target.name) fw=\(record.start.version)")
        // The new entry goes to the sector that does not hold the active one: power lost while it is written tears
        // only that sector, so the old entry still boots the old bank and the verified image waits for another
        // ACTIVATE (the record is dropped only once the write is done).
        let (sector, entry) = flash.banks.otadata.switching(to: flash.banks.target)
        flashWrite(entry, to: .otadata(sector), at: 0, taking: Self.otadataWrite, erasing: true)
        board.after(Self.otadataWrite) { [weak self] in
            guard let self else { return }
            flash.record = nil
            self.board?.after(EspPointCommandService.rebootDelay) { [weak self] in self?.board?.reset(.software) }
        }
        return nil
    }
}
