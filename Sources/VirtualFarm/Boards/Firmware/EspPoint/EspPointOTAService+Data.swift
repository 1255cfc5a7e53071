import BLECore
import DeviceProfiles

/// OTA Data (docs/board-contract.md, esp-point "OTA"): frames checked and programmed into the inactive bank with
/// flash timing, an ACK every `batch` frames, NAK and discard until the expected frame, and the link-drop faults.
extension EspPointOTAService {
    /// A frame on OTA Data (write without response: nothing is answered on the ATT level).
    func data(_ value: [UInt8], on connection: GATTServer.ConnectionID) -> ATT.ErrorCode? {
        guard let board else { return nil }
        guard auth.isAuthenticated(connection) else { return .insufficientAuthentication }
        guard run.connection == connection, let record = flash.record, !record.verified else {
            if !run.strayFramesLogged {
                run.strayFramesLogged = true
                board.log(.warning, "OTA", "data frames discarded: no START on this connection")
            }
            return nil
        }
        var bytes = value
        if let remaining = flash.faults.crcAfterFrames, !bytes.isEmpty {
            if remaining <= 0 {
                flash.faults.crcAfterFrames = nil
                bytes[bytes.count / 2] ^= 0x01
            } else {
                flash.faults.crcAfterFrames = remaining - 1
            }
        }
        let expected = run.expectedSeq
        let frame: OTA.Frame
        do { frame = try OTA.Frame(decoding: bytes) } catch {
            if !run.discarding { nak(expected, .crc, "\(error)") }
            return nil
        }
        if frame.seq < expected { return nil }  // a duplicate from before a rewind
        if run.discarding {
            guard frame.seq == expected else { return nil }
            run.discarding = false
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
        run.expectedSeq = expected + 1
        let now = board.sim.now
        let begin = max(now, run.flashBusyUntil)
        let done = begin + Self.flashTiming.programDuration(offset: offset, length: length)
        run.flashBusyUntil = done
        let epoch = run.epoch
        let region = FlashOperation.Region.bank(flash.banks.target)
        let old = flash.banks.read(region, offset..<(offset + length))
        flash.inFlight.add(
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
        var drop = flash.faults.dropBeforeLast && frame == frames - 1
        if let remaining = flash.faults.dropAfterFrames {
            if remaining <= 0 { drop = true } else { flash.faults.dropAfterFrames = remaining - 1 }
        }
        guard drop else { return false }
        flash.faults.dropAfterFrames = nil
        flash.faults.dropBeforeLast = false
        board?.log(.warning, "OTA", "fault: dropping the link before frame \(frame)")
        // Not from inside the GATT server's handling of this write: right after it.
        board?.after(.zero) { [weak self] in self?.board?.disconnectAll() }
        return true
    }

    private func nak(_ expected: UInt32, _ reason: OTA.NakReason, _ why: String) {
        run.discarding = true
        board?.log(.warning, "OTA", "nak expected_seq=\(expected) reason=\(reason): \(why)")
        notifyOTA(.nak(expectedSeq: expected, reason: reason))
    }

    /// A frame's page programs finished: the bytes are in flash; every `batch` frames, and at the end, the state
    /// is persisted and ACKed.
    private func programmed(_ frame: OTA.Frame, at offset: Int, epoch: Int) {
        guard let board, run.epoch == epoch, var record = flash.record, frame.seq == run.flashedSeq else { return }
        if flash.faults.flashWrite {
            flash.faults.flashWrite = false
            // The page program failed: everything queued after it is void; the sector is erased again from the
            // frame's offset and the central resends from it.
            run.epoch += 1
            run.flashBusyUntil = eraseTarget(from: offset, to: Int(record.start.size))
            run.expectedSeq = frame.seq
            if run.connection != nil { nak(frame.seq, .flashWrite, "page program failed at offset \(offset)") }
            return
        }
        flash.banks.program(frame.payload, at: offset)
        run.crc.update(frame.payload)
        run.flashedSeq += 1
        run.sinceAck += 1
        let finished = run.flashedSeq == record.frames
        if finished, flash.faults.corruptBank {
            flash.faults.corruptBank = false
            flash.banks.corrupt(at: Int(record.start.size) / 2)
            board.log(.warning, "OTA", "fault: a bit flipped in bank \(flash.banks.target.name)")
        }
        guard run.sinceAck >= Int(record.start.effectiveBatch) || finished else { return }
        run.sinceAck = 0
        record.nextSeq = run.flashedSeq
        record.crc = run.crc.value
        flash.record = record
        let batch = (record.nextSeq - 1) / UInt32(record.start.effectiveBatch)
        board.log(.info, "OTA", "batch \(batch) ok next_seq=\(record.nextSeq)")
        notifyOTA(.ack(nextSeq: record.nextSeq))
    }
}
