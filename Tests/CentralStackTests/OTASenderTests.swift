import BLECore
import CentralStack
import DeviceProfiles
import Testing

/// The OTA sender's state machine, every action asserted: windows, ACKs, NAK rewinds, resumes, FINISH results,
/// the reboot check, pause, and that nothing it can do aborts.
@Suite("OTA sender state machine")
struct OTASenderTests {
    typealias OTA = EspPoint.OTA
    /// 1000 bytes at 236 per frame: 5 frames, the last of 56 bytes.
    static let image = OTASender.Image(size: 1000, crc32: 0x1234_5678, version: FirmwareVersion(1, 5, 0))

    static func start(window: Int, batch: UInt8) -> OTASender.Action {
        .writeControl(
            .start(
                OTA.Start(
                    size: 1000, crc32: 0x1234_5678, version: FirmwareVersion(1, 5, 0), batch: batch,
                    window: UInt8(window))))
    }

    static func frame(_ seq: UInt32) -> [OTASender.Action] { [.sendFrame(seq: seq, maxPayload: 236)] }

    @Test("a clean update: START, frames within a window of 2 batches of 2, ACKs, FINISH, ACTIVATE, reboot, committed")
    func cleanUpdate() {
        var s = OTASender(image: Self.image, options: .init(window: 2, batch: 2))
        #expect(s.handle(.connected) == [Self.start(window: 2, batch: 2), .waitForNotification])
        #expect(s.handle(.notification(.startResult(status: .ok, nextSeq: 0, maxPayload: 236))) == Self.frame(0))
        #expect(s.handle(.frameQueued) == Self.frame(1))
        #expect(s.handle(.frameQueued) == Self.frame(2))
        #expect(s.handle(.frameQueued) == Self.frame(3))
        #expect(s.handle(.frameQueued) == [.waitForNotification])
        #expect(s.handle(.notification(.ack(nextSeq: 2))) == Self.frame(4))
        #expect(s.handle(.frameQueued) == [.waitForNotification])
        #expect(s.handle(.notification(.ack(nextSeq: 4))) == [.waitForNotification])
        #expect(s.handle(.notification(.ack(nextSeq: 5))) == [.writeControl(.finish), .waitForNotification])
        #expect(s.handle(.notification(.finishResult(.ok))) == [.writeControl(.activate), .waitForReboot])
        #expect(s.handle(.linkDown) == [.reconnect])
        #expect(s.handle(.connected) == [.readFirmwareRevision])
        #expect(s.handle(.firmwareRevision("1.5.0")) == [.finished(.committed(FirmwareVersion(1, 5, 0)))])
        #expect(s.handle(.notification(.ack(nextSeq: 5))) == [])
        #expect(s.statistics.resumes == 0)
        #expect(s.statistics.framesSent == 5)
        #expect(s.statistics.framesResent == 0)
    }

    @Test("window 1 is stop-and-wait per batch: nothing more goes out until the batch is acknowledged")
    func stopAndWait() {
        var s = OTASender(image: Self.image, options: .init(window: 1, batch: 2))
        _ = s.handle(.connected)
        #expect(s.handle(.notification(.startResult(status: .ok, nextSeq: 0, maxPayload: 236))) == Self.frame(0))
        #expect(s.handle(.frameQueued) == Self.frame(1))
        #expect(s.handle(.frameQueued) == [.waitForNotification])
        #expect(s.handle(.notification(.ack(nextSeq: 2))) == Self.frame(2))
        #expect(s.handle(.frameQueued) == Self.frame(3))
        #expect(s.handle(.frameQueued) == [.waitForNotification])
    }

    @Test("a NAK rewinds to the board's expected frame and those frames are sent again")
    func nakRewinds() {
        var s = OTASender(image: Self.image, options: .init(window: 2, batch: 2))
        _ = s.handle(.connected)
        _ = s.handle(.notification(.startResult(status: .ok, nextSeq: 0, maxPayload: 236)))
        for _ in 0..<4 { _ = s.handle(.frameQueued) }
        #expect(s.handle(.notification(.nak(expectedSeq: 1, reason: .crc))) == Self.frame(1))
        #expect(s.handle(.frameQueued) == Self.frame(2))
        #expect(s.handle(.frameQueued) == Self.frame(3))
        #expect(s.statistics.naks == 1)
        #expect(s.statistics.naksByReason == [1: 1])
        #expect(s.statistics.framesResent == 3)
        // A NAK before what the board already acknowledged is a protocol violation, not a rewind.
        _ = s.handle(.notification(.ack(nextSeq: 2)))
        guard
            case .failed(.protocolViolation)? = s.handle(.notification(.nak(expectedSeq: 0, reason: .outOfOrder))).first
        else {
            Issue.record("a NAK before the acknowledged frames should fail the update")
            return
        }
    }

    @Test("a lost link resumes: reconnect, START again, continue from the next_seq the board answers")
    func resumeAfterLinkLoss() {
        var s = OTASender(image: Self.image, options: .init(window: 2, batch: 2))
        _ = s.handle(.connected)
        _ = s.handle(.notification(.startResult(status: .ok, nextSeq: 0, maxPayload: 236)))
        for _ in 0..<3 { _ = s.handle(.frameQueued) }
        _ = s.handle(.notification(.ack(nextSeq: 2)))
        #expect(s.handle(.linkDown) == [.reconnect])
        #expect(s.handle(.connected) == [Self.start(window: 2, batch: 2), .waitForNotification])
        #expect(s.handle(.notification(.startResult(status: .ok, nextSeq: 2, maxPayload: 236))) == Self.frame(2))
        #expect(s.statistics.resumes == 1)
        #expect(s.statistics.lastStartSeq == 2)
        // A START answered with every frame in flash goes straight to FINISH.
        #expect(s.handle(.linkDown) == [.reconnect])
        _ = s.handle(.connected)
        #expect(
            s.handle(.notification(.startResult(status: .ok, nextSeq: 5, maxPayload: 236))) == [
                .writeControl(.finish), .waitForNotification,
            ])
        #expect(s.statistics.resumes == 2)
    }

    @Test("a silence while streaming asks STATUS and continues from the board's next_seq")
    func timeoutAsksStatus() {
        var s = OTASender(image: Self.image, options: .init(window: 1, batch: 2))
        _ = s.handle(.connected)
        _ = s.handle(.notification(.startResult(status: .ok, nextSeq: 0, maxPayload: 236)))
        _ = s.handle(.frameQueued)
        _ = s.handle(.frameQueued)
        #expect(s.handle(.timeout) == [.writeControl(.status), .waitForNotification])
        let status = OTA.Status(state: .receiving, nextSeq: 2, crc32: 0x1234_5678, size: 1000)
        #expect(s.handle(.notification(.status(status))) == Self.frame(2))
        #expect(s.statistics.timeouts == 1)
    }

    @Test("FINISH 4 (corrupted bank) uploads again from START; once the re-uploads are used up it fails")
    func finishVerifyFailureUploadsAgain() {
        var s = OTASender(image: Self.image, options: .init(window: 8, batch: 10, reuploads: 1))
        _ = s.handle(.connected)
        _ = s.handle(.notification(.startResult(status: .ok, nextSeq: 5, maxPayload: 236)))
        #expect(
            s.handle(.notification(.finishResult(.flashVerifyFailed))) == [
                Self.start(window: 8, batch: 10), .waitForNotification,
            ])
        #expect(s.statistics.reuploads == 1)
        _ = s.handle(.notification(.startResult(status: .ok, nextSeq: 5, maxPayload: 236)))
        #expect(
            s.handle(.notification(.finishResult(.flashVerifyFailed))) == [.failed(.finishFailed(.flashVerifyFailed))])
    }

    @Test("FINISH 3 (bad signature) and a refused START fail the update at once")
    func refusals() {
        var s = OTASender(image: Self.image, options: .init())
        _ = s.handle(.connected)
        // Busy: a START repeated after a silence met the erase the first one started; its answer is awaited.
        #expect(
            s.handle(.notification(.startResult(status: .busy, nextSeq: 0, maxPayload: 236))) == [.waitForNotification])
        #expect(
            s.handle(.notification(.startResult(status: .batteryLow, nextSeq: 0, maxPayload: 236))) == [
                .failed(.startRefused(.batteryLow))
            ])
        var t = OTASender(image: Self.image, options: .init())
        _ = t.handle(.connected)
        _ = t.handle(.notification(.startResult(status: .ok, nextSeq: 5, maxPayload: 236)))
        #expect(t.handle(.notification(.finishResult(.badSignature))) == [.failed(.finishFailed(.badSignature))])
    }

    @Test(
        "after the reboot an old Firmware Revision asks STATUS: a rollback is reported, a verified image is activated again, anything else fails"
    )
    func rollbackReported() {
        func afterReboot() -> OTASender {
            var s = OTASender(image: Self.image, options: .init())
            _ = s.handle(.connected)
            _ = s.handle(.notification(.startResult(status: .ok, nextSeq: 5, maxPayload: 236)))
            _ = s.handle(.notification(.finishResult(.ok)))
            _ = s.handle(.linkDown)
            _ = s.handle(.connected)
            return s
        }
        var s = afterReboot()
        #expect(s.handle(.firmwareRevision("1.4.2")) == [.writeControl(.status), .waitForNotification])
        let rolledBack = OTA.Status(state: .rolledBack, nextSeq: 0, crc32: 0, size: 0)
        #expect(s.handle(.notification(.status(rolledBack))) == [.finished(.rolledBack(running: "1.4.2"))])
        var t = afterReboot()
        _ = t.handle(.firmwareRevision("1.4.2"))
        let idle = OTA.Status(state: .idle, nextSeq: 0, crc32: 0, size: 0)
        #expect(t.handle(.notification(.status(idle))) == [.failed(.notActivated(running: "1.4.2", state: .idle))])
        // The board still holds the verified image (ACTIVATE did not take): ACTIVATE again.
        var u = afterReboot()
        _ = u.handle(.firmwareRevision("1.4.2"))
        let verified = OTA.Status(state: .verified, nextSeq: 5, crc32: 0x1234_5678, size: 1000)
        #expect(u.handle(.notification(.status(verified))) == [.writeControl(.activate), .waitForReboot])
    }

    @Test("pause stops new frames without sending anything; resume goes on from where it was")
    func pauseAndResume() {
        var s = OTASender(image: Self.image, options: .init(window: 8, batch: 10))
        _ = s.handle(.connected)
        #expect(s.handle(.notification(.startResult(status: .ok, nextSeq: 0, maxPayload: 236))) == Self.frame(0))
        #expect(s.handle(.pause) == [])
        #expect(s.handle(.frameQueued) == [.waitForNotification])
        #expect(s.handle(.resume) == Self.frame(1))
    }

    @Test("no event sequence makes the sender send anything but START, FINISH, ACTIVATE or STATUS: there is no abort")
    func noAbort() {
        var random = SeededRandom(seed: 5, stream: "ota-sender-fuzz")
        let events: [OTASender.Event] = [
            .connected, .frameQueued, .timeout, .linkDown, .pause, .resume, .firmwareRevision("1.4.2"),
            .firmwareRevision("1.5.0"), .notification(.startResult(status: .ok, nextSeq: 0, maxPayload: 236)),
            .notification(.startResult(status: .ok, nextSeq: 3, maxPayload: 236)), .notification(.ack(nextSeq: 2)),
            .notification(.ack(nextSeq: 5)), .notification(.nak(expectedSeq: 2, reason: .crc)),
            .notification(.finishResult(.ok)), .notification(.finishResult(.flashVerifyFailed)),
            .notification(.status(OTA.Status(state: .rolledBack, nextSeq: 0, crc32: 0, size: 0))),
        ]
        let allowed: Set<OTA.Request> = [.finish, .activate, .status]
        for _ in 0..<300 {
            var s = OTASender(image: Self.image, options: .init(window: Int(random.next() % 4) + 1, batch: 2))
            for _ in 0..<60 {
                for action in s.handle(events[Int(random.next() % UInt64(events.count))]) {
                    if case let .writeControl(request) = action, !allowed.contains(request) {
                        guard case .start = request else {
                            Issue.record("the sender wrote \(request)")
                            return
                        }
                    }
                    if case let .sendFrame(seq, _) = action { #expect(seq < 5) }
                }
            }
        }
    }
}
