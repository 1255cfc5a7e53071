import BLECore
import Crypto
import DeviceProfiles

/// The OTA protocol on the board (docs/board-contract.md, esp-point "OTA"): START (erase, or resume from the persisted
/// next_seq), data frames checked and programmed into the inactive bank with flash timing, an ACK every `batch`
/// frames, NAK and discard until the expected frame, FINISH's verification, ACTIVATE into "pending verify". The
/// bootloader side (which bank boots, the self-test, commit or rollback) is in `+Boot`.
extension EspPointFirmware {
    typealias OTA = EspPoint.OTA

    /// The battery level below which START is refused (status 3).
    static let otaMinimumBattery: UInt8 = 20
    static let flashTiming = FlashTiming()

    // MARK: OTA Control

    func otaControl(_ value: [UInt8], on connection: GATTServer.ConnectionID) -> ATT.ErrorCode? {
        guard isAuthenticated(connection) else {
            board?.log("W", "OTA", "request refused: not authenticated")
            return .insufficientAuthentication
        }
        let request: OTA.Request
        do { request = try OTA.Request(decoding: value) } catch {
            board?.log("W", "OTA", "\(error)")
            return .invalidAttributeValueLength
        }
        switch request {
        case let .start(start): otaStart(start, on: connection)
        case .finish: otaFinish()
        case .activate: return otaActivate()
        case .status: notifyOTA(.status(otaStatus))
        }
        return nil
    }

    private func notifyOTA(_ notification: OTA.Notification) {
        board?.notify(EspPoint.otaControl, in: EspPoint.otaService, notification.encoded)
    }

    var otaStatus: OTA.Status {
        if let record = ota.record {
            return OTA.Status(
                state: record.verified ? .verified : .receiving, nextSeq: record.nextSeq, crc32: record.start.crc32,
                size: record.start.size)
        }
        return OTA.Status(state: ota.outcome, nextSeq: 0, crc32: ota.last.crc, size: ota.last.size)
    }

    /// START: refuse (too large, busy, battery), resume the persisted update when size and CRC match, or erase the
    /// image's region and start at 0. The answer comes once the flash is ready, after the erase.
    private func otaStart(_ start: OTA.Start, on connection: GATTServer.ConnectionID) {
        guard let board else { return }
        let now = board.sim.now
        let maxPayload = OTA.maxPayload(mtu: board.mtu(of: connection))
        func refuse(_ status: OTA.StartStatus, _ why: String) {
            board.log("W", "OTA", "start refused: \(why)")
            notifyOTA(.startResult(status: status, nextSeq: 0, maxPayload: UInt16(clamping: maxPayload)))
        }
        updateBattery()
        if Int(start.size) > FlashBanks.bankCapacity {
            return refuse(.tooLarge, "image of \(start.size) bytes exceeds the bank's \(FlashBanks.bankCapacity)")
        }
        if otaRun.activating || otaRun.flashBusyUntil > now {
            return refuse(.busy, "the flash is busy (erase, verify or activation in progress)")
        }
        if battery.percent < Self.otaMinimumBattery {
            return refuse(.batteryLow, "battery at \(battery.percent) % (START needs \(Self.otaMinimumBattery) %)")
        }
        guard maxPayload > 0 else {
            return refuse(.busy, "ATT_MTU \(board.mtu(of: connection)) leaves no room for a frame")
        }
        otaRun.epoch += 1
        otaRun.connection = connection
        otaRun.discarding = false
        otaRun.sinceAck = 0
        let timing = Self.flashTiming
        if var record = ota.record, record.start.size == start.size, record.start.crc32 == start.crc32,
            record.maxPayload <= maxPayload
        {
            // Resume: frames up to the persisted next_seq are in flash; what the flash holds after it (frames
            // programmed after the last ACK, or torn by a power loss) is erased again from its sector on.
            record.start.batch = start.batch
            record.start.window = start.window
            ota.record = record
            let offset = Int(record.nextSeq) * record.maxPayload
            let ready = record.verified ? now : eraseTarget(from: offset, to: Int(record.start.size))
            (otaRun.expectedSeq, otaRun.flashedSeq) = (record.nextSeq, record.nextSeq)
            otaRun.crc = CRC32(resumingFrom: record.crc)
            otaRun.flashBusyUntil = ready
            board.log(
                "I", "OTA",
                "resume size=\(start.size) next_seq=\(record.nextSeq) of \(record.frames) max_payload=\(record.maxPayload)"
            )
            answerStart(at: ready, nextSeq: record.nextSeq, maxPayload: record.maxPayload)
            advertisedStateChanged()
            return
        }
        // A new image: any earlier update is dropped; the region is erased before the first frame.
        ota.record = nil
        let erase = timing.eraseDuration(offset: 0, length: Int(start.size))
        let ready = now + erase
        otaRun.flashBusyUntil = ready
        let epoch = otaRun.epoch
        // The image header goes first (it is in the first sector): the bank stops being bootable at once. The rest
        // of the region is erased by `ready`; a power loss before then leaves it part erased.
        let region = FlashOperation.Region.bank(ota.banks.target)
        let size = Int(start.size)
        flashWrite(
            [UInt8](repeating: 0xFF, count: FlashBanks.Descriptor.length), to: .descriptor(ota.banks.target), at: 0,
            taking: timing.sectorErase, erasing: true)
        ota.inFlight.add(
            FlashOperation(
                region: region, offset: 0, old: ota.banks.read(region, 0..<size),
                new: [UInt8](repeating: 0xFF, count: size), begin: now, end: ready, eraseShare: 1, epoch: epoch),
            now: now)
        board.log(
            "I", "OTA",
            "start size=\(start.size) fw=\(start.version) batch=\(start.effectiveBatch) window=\(start.window) "
                + "erasing bank=\(ota.banks.targetName) (\(Int(erase.milliseconds)) ms)")
        board.at(ready) { [weak self] in
            guard let self, otaRun.epoch == epoch else { return }
            ota.banks.store([UInt8](repeating: 0xFF, count: size), in: region, at: 0)
            ota.record = OTAFlashState.Record(start: start, maxPayload: maxPayload, nextSeq: 0, crc: CRC32().value)
            (otaRun.expectedSeq, otaRun.flashedSeq, otaRun.crc) = (0, 0, CRC32())
            notifyOTA(.startResult(status: .ok, nextSeq: 0, maxPayload: UInt16(maxPayload)))
            advertisedStateChanged()
        }
    }

    private func answerStart(at ready: RigInstant, nextSeq: UInt32, maxPayload: Int) {
        guard let board else { return }
        let epoch = otaRun.epoch
        board.at(ready) { [weak self] in
            guard let self, otaRun.epoch == epoch else { return }
            notifyOTA(.startResult(status: .ok, nextSeq: nextSeq, maxPayload: UInt16(maxPayload)))
        }
    }

    // MARK: OTA Data

    /// A frame on OTA Data (write without response: nothing is answered on the ATT level).
    func otaData(_ value: [UInt8], on connection: GATTServer.ConnectionID) -> ATT.ErrorCode? {
        guard let board else { return nil }
        guard isAuthenticated(connection) else { return .insufficientAuthentication }
        guard otaRun.connection == connection, let record = ota.record, !record.verified else {
            if !otaRun.strayFramesLogged {
                otaRun.strayFramesLogged = true
                board.log("W", "OTA", "data frames discarded: no START on this connection")
            }
            return nil
        }
        var bytes = value
        if ota.faults.crc, !bytes.isEmpty {
            ota.faults.crc = false
            bytes[bytes.count / 2] ^= 0x01
        }
        let expected = otaRun.expectedSeq
        let frame: OTA.Frame
        do { frame = try OTA.Frame(decoding: bytes) } catch {
            if !otaRun.discarding { nak(expected, .crc, "\(error)") }
            return nil
        }
        if frame.seq < expected { return nil }  // a duplicate from before a rewind
        if otaRun.discarding {
            guard frame.seq == expected else { return nil }
            otaRun.discarding = false
        } else if frame.seq > expected {
            nak(expected, .outOfOrder, "frame \(frame.seq) arrived, \(expected) expected")
            return nil
        }
        let offset = Int(frame.seq) * record.maxPayload
        let length = min(record.maxPayload, Int(record.start.size) - offset)
        guard frame.payload.count == length else {
            nak(expected, .crc, "frame \(frame.seq) carries \(frame.payload.count) bytes, \(length) expected")
            return nil
        }
        if dropLinkBefore(frame: frame.seq, of: record.frames) { return nil }
        otaRun.expectedSeq = expected + 1
        let now = board.sim.now
        let begin = max(now, otaRun.flashBusyUntil)
        let done = begin + Self.flashTiming.programDuration(offset: offset, length: length)
        otaRun.flashBusyUntil = done
        let epoch = otaRun.epoch
        let region = FlashOperation.Region.bank(ota.banks.target)
        let old = ota.banks.read(region, offset..<(offset + length))
        ota.inFlight.add(
            FlashOperation(
                region: region, offset: offset, old: old, new: zip(old, frame.payload).map { $0 & $1 }, begin: begin,
                end: done, eraseShare: 0, epoch: epoch),
            now: now)
        board.at(done) { [weak self] in
            self?.programmed(frame, at: offset, epoch: epoch)
        }
        return nil
    }

    /// The link-drop faults: true when the board dropped the link instead of taking `frame`.
    private func dropLinkBefore(frame: UInt32, of frames: UInt32) -> Bool {
        var drop = ota.faults.dropBeforeLast && frame == frames - 1
        if let remaining = ota.faults.dropAfterFrames {
            if remaining <= 0 { drop = true } else { ota.faults.dropAfterFrames = remaining - 1 }
        }
        guard drop else { return false }
        ota.faults.dropAfterFrames = nil
        ota.faults.dropBeforeLast = false
        board?.log("W", "OTA", "fault: dropping the link before frame \(frame)")
        // Not from inside the GATT server's handling of this write: right after it.
        board?.after(.zero) { [weak self] in self?.board?.disconnectAll() }
        return true
    }

    private func nak(_ expected: UInt32, _ reason: OTA.NakReason, _ why: String) {
        otaRun.discarding = true
        board?.log("W", "OTA", "nak expected_seq=\(expected) reason=\(reason): \(why)")
        notifyOTA(.nak(expectedSeq: expected, reason: reason))
    }

    /// A frame's page programs finished: the bytes are in flash; every `batch` frames, and at the end, the state
    /// is persisted and ACKed.
    private func programmed(_ frame: OTA.Frame, at offset: Int, epoch: Int) {
        guard let board, otaRun.epoch == epoch, var record = ota.record, frame.seq == otaRun.flashedSeq else { return }
        if ota.faults.flashWrite {
            ota.faults.flashWrite = false
            // The page program failed: everything queued after it is void; the sector is erased again from the
            // frame's offset and the central resends from it.
            otaRun.epoch += 1
            otaRun.flashBusyUntil = eraseTarget(from: offset, to: Int(record.start.size))
            otaRun.expectedSeq = frame.seq
            if otaRun.connection != nil { nak(frame.seq, .flashWrite, "page program failed at offset \(offset)") }
            return
        }
        ota.banks.program(frame.payload, at: offset)
        otaRun.crc.update(frame.payload)
        otaRun.flashedSeq += 1
        otaRun.sinceAck += 1
        let finished = otaRun.flashedSeq == record.frames
        if finished, ota.faults.corruptBank {
            ota.faults.corruptBank = false
            ota.banks.corrupt(at: Int(record.start.size) / 2)
            board.log("W", "OTA", "fault: a bit flipped in bank \(ota.banks.targetName)")
        }
        guard otaRun.sinceAck >= Int(record.start.effectiveBatch) || finished else { return }
        otaRun.sinceAck = 0
        record.nextSeq = otaRun.flashedSeq
        record.crc = otaRun.crc.value
        ota.record = record
        let batch = (record.nextSeq - 1) / UInt32(record.start.effectiveBatch)
        board.log("I", "OTA", "batch \(batch) ok next_seq=\(record.nextSeq)")
        notifyOTA(.ack(nextSeq: record.nextSeq))
    }

    // MARK: FINISH and ACTIVATE

    /// FINISH: reads the bank back and checks size, CRC, flash and (with a key) the signature; answers after the
    /// read. Any failure drops the update, so uploading again starts at 0.
    private func otaFinish() {
        guard let board else { return }
        guard var record = ota.record else {
            board.log("W", "OTA", "finish: no update in progress")
            return notifyOTA(.finishResult(.sizeMismatch))
        }
        if record.verified { return notifyOTA(.finishResult(.ok)) }
        guard record.nextSeq == record.frames else {
            board.log("W", "OTA", "finish: \(record.nextSeq) of \(record.frames) frames written")
            return notifyOTA(.finishResult(.sizeMismatch))
        }
        let size = Int(record.start.size)
        let now = board.sim.now
        let done = max(now, otaRun.flashBusyUntil) + Self.flashTiming.readDuration(length: size)
        otaRun.flashBusyUntil = done
        let epoch = otaRun.epoch
        board.at(done) { [weak self] in
            guard let self, otaRun.epoch == epoch else { return }
            let status: OTA.FinishStatus
            if record.crc != record.start.crc32 {
                status = .crcMismatch
            } else if ota.banks.crc(length: size) != record.start.crc32 {
                status = .flashVerifyFailed
            } else if let key = ota.signingKey, !Self.signatureValid(ota.banks.bytes(0..<size), key: key) {
                status = .badSignature
            } else {
                status = .ok
            }
            if status == .ok {
                record.verified = true
                ota.record = record
                let descriptor = FlashBanks.Descriptor(
                    size: record.start.size, crc32: record.start.crc32, version: record.start.version)
                flashWrite(
                    descriptor.encoded, to: .descriptor(ota.banks.target), at: 0,
                    taking: Self.flashTiming.pageProgram, erasing: false)
                ota.last = (record.start.size, record.start.crc32)
                self.board?.log(
                    "I", "OTA", "finish ok: bank=\(ota.banks.targetName) fw=\(record.start.version) verified")
            } else {
                ota.record = nil
                self.board?.log("E", "OTA", "finish failed: \(status); the update is dropped (upload again)")
                advertisedStateChanged()
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
    private func otaActivate() -> ATT.ErrorCode? {
        guard let board, let record = ota.record, record.verified else {
            board?.log("W", "OTA", "activate refused: no verified image")
            return .valueNotAllowed
        }
        guard !otaRun.activating else { return nil }
        otaRun.activating = true
        board.log("I", "OTA", "activate bank=\(ota.banks.targetName) fw=\(record.start.version)")
        // The new entry goes to the sector that does not hold the active one: power lost while it is written tears
        // only that sector, so the old entry still boots the old bank and the verified image waits for another
        // ACTIVATE (the record is dropped only once the write is done).
        let (sector, entry) = ota.banks.otadata.switching(to: ota.banks.target)
        flashWrite(entry, to: .otadata(sector), at: 0, taking: Self.otadataWrite, erasing: true)
        board.after(Self.otadataWrite) { [weak self] in
            guard let self else { return }
            ota.record = nil
            self.board?.after(Self.rebootDelay) { [weak self] in self?.board?.reset(.software) }
        }
        return nil
    }

    // MARK: Flash writes and power loss

    /// Writes `bytes` to `region` at `offset` now and keeps the write as under way for `duration`: a power loss
    /// before it ends tears it (``powerLost()``). `erasing`: a sector erase comes first.
    func flashWrite(
        _ bytes: [UInt8], to region: FlashOperation.Region, at offset: Int, taking duration: Duration, erasing: Bool
    ) {
        guard let board else { return }
        let now = board.sim.now
        let old = ota.banks.read(region, offset..<(offset + bytes.count))
        ota.banks.store(bytes, in: region, at: offset)
        let share = erasing ? min(1, Self.flashTiming.sectorErase / duration) : 0
        ota.inFlight.add(
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
        guard offset < end else { return max(now, otaRun.flashBusyUntil) }
        let start = offset / timing.sectorSize * timing.sectorSize
        let region = FlashOperation.Region.bank(ota.banks.target)
        var bytes = ota.banks.read(region, start..<end)
        for i in (offset - start)..<bytes.count { bytes[i] = 0xFF }
        let erase = timing.eraseDuration(offset: start, length: end - start)
        let program = timing.programDuration(offset: start, length: offset - start)
        let begin = max(now, otaRun.flashBusyUntil)
        let old = ota.banks.read(region, start..<end)
        ota.banks.store(bytes, in: region, at: start)
        ota.inFlight.add(
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
        for operation in ota.inFlight.interrupted(at: now) {
            if let epoch = operation.epoch, epoch != otaRun.epoch { continue }
            let fraction = operation.begin.duration(to: now) / operation.begin.duration(to: operation.end)
            ota.banks.store(operation.torn(at: fraction, random: &random), in: operation.region, at: operation.offset)
            torn.append("\(operation.region) at \(Int(fraction * 100)) %")
        }
        return torn
    }
}
