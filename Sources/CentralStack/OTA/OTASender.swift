import BLECore
import DeviceProfiles

/// The central's side of the esp-point OTA protocol (docs/board-contract.md, esp-point "OTA") as a sans-I/O state
/// machine: events in (a session is ready, a notification, the link took a frame, a timeout, the link went down, the
/// Firmware Revision after the reboot, pause and resume), actions out (write a control request, send frame k, wait,
/// reconnect, read the Firmware Revision, done). ``OTATransfer`` is the shell that carries the actions out.
///
/// At most `window` unacknowledged batches are in flight: frames `acked ..< acked + window × batch`. A NAK
/// rewinds to the board's expected frame; a lost link resumes, after a reconnect, from the next_seq the board
/// answers START with. There is deliberately no abort (an abort at the wrong moment corrupts flash, the case
/// study's lesson): the sender can be paused, and a paused or interrupted update resumes from the board's state.
public struct OTASender: Sendable {
    public typealias OTA = EspPoint.OTA

    /// The image as START announces it.
    public struct Image: Sendable, Hashable {
        public var size: UInt32
        public var crc32: UInt32
        public var version: FirmwareVersion

        public init(size: UInt32, crc32: UInt32, version: FirmwareVersion) {
            self.size = size
            self.crc32 = crc32
            self.version = version
        }
    }

    public struct Options: Sendable, Hashable {
        /// Unacknowledged batches in flight: 1 is the case study's stop-and-wait per batch.
        public var window: Int
        /// Frames per ACK.
        public var batch: UInt8
        /// Uploads started again after FINISH found the bank corrupted (status 4), before giving up.
        public var reuploads: Int
        /// Control requests (START, FINISH, STATUS) sent again after a timeout, before giving up.
        public var retries: Int

        public init(window: Int = 4, batch: UInt8 = 10, reuploads: Int = 2, retries: Int = 3) {
            self.window = min(255, max(1, window))
            self.batch = max(1, batch)
            self.reuploads = reuploads
            self.retries = retries
        }
    }

    public enum Event: Sendable, Hashable {
        /// A session is up and authenticated (the first, or one after a lost link or the reboot).
        case connected
        case notification(OTA.Notification)
        /// The link took the last frame: it has room for another.
        case frameQueued
        /// Nothing arrived within the shell's timeout for the wait asked for.
        case timeout
        case linkDown
        /// Firmware Revision as read after the reboot.
        case firmwareRevision(String)
        case pause
        case resume
    }

    public enum Action: Sendable, Hashable {
        case writeControl(OTA.Request)
        /// Send frame `seq`: image bytes from `seq × maxPayload`, at most `maxPayload` of them.
        case sendFrame(seq: UInt32, maxPayload: Int)
        /// Wait for a notification on OTA Control (an ACK, a NAK, a result).
        case waitForNotification
        /// ACTIVATE was written: wait for the link to drop as the board reboots.
        case waitForReboot
        /// The link is gone: reconnect, authenticate, then report ``Event/connected``.
        case reconnect
        case readFirmwareRevision
        case finished(Outcome)
        case failed(Failure)
    }

    public enum Outcome: Sendable, Hashable, CustomStringConvertible {
        /// Firmware Revision shows the new version.
        case committed(FirmwareVersion)
        /// The board rolled back (STATUS says so) and runs `running`.
        case rolledBack(running: String)

        public var description: String {
            switch self {
            case let .committed(version): "committed \(version)"
            case let .rolledBack(running): "rolled back to \(running)"
            }
        }
    }

    public enum Failure: Error, Sendable, Hashable, CustomStringConvertible {
        case startRefused(OTA.StartStatus)
        case finishFailed(OTA.FinishStatus)
        /// After the reboot the board runs `running` and does not report a rollback (STATUS state given).
        case notActivated(running: String, state: OTA.State)
        case unanswered(String)
        case protocolViolation(String)

        public var description: String {
            switch self {
            case let .startRefused(status): "START refused: \(status)"
            case let .finishFailed(status): "FINISH failed: \(status)"
            case let .notActivated(running, state):
                "after ACTIVATE the board runs \(running) and its OTA state is \(state), not committed or rolled back"
            case let .unanswered(what): "no answer to \(what) after every retry"
            case let .protocolViolation(why): "protocol violation: \(why)"
            }
        }
    }

    /// The frames in flight: the board's next_seq as last acknowledged, the next frame to send, and the geometry
    /// START answered.
    struct Window: Sendable, Hashable {
        var maxPayload: Int
        var frames: UInt32
        var acked: UInt32
        var nextToSend: UInt32
    }

    /// Where the update stands; each state carries what it needs.
    enum Phase: Sendable, Hashable {
        case idle
        /// START is sent: waiting for its answer (the board erases first).
        case starting
        /// Frames flow within the window.
        case streaming(Window)
        /// FINISH is sent: the board reads the bank back.
        case finishing
        /// ACTIVATE is sent: waiting for the link to drop as the board reboots, then for the next session.
        case activating
        /// A session after the reboot: reading Firmware Revision.
        case verifying
        /// The board runs `running`, not the new image: STATUS says whether it rolled back.
        case checkingRollback(running: String)
        case done
    }

    public let image: Image
    public let options: Options
    private(set) var phase = Phase.idle
    /// The frames acknowledged and the image's frame count, as of the last window (kept after streaming ends).
    private var acknowledged: (acknowledged: UInt32, frames: UInt32) = (0, 0)
    private(set) var paused = false
    private var retriesLeft: Int
    /// The link went down while frames were still to go: the next session resumes.
    private var interrupted = false
    /// ACTIVATEs sent again because the board still held the verified image after a reboot.
    private var activations = 0

    /// What happened, for the report.
    public private(set) var statistics = Statistics()

    public struct Statistics: Sendable, Hashable {
        /// Sessions that took an interrupted update up again from the board's next_seq.
        public var resumes = 0
        public var naks = 0
        /// NAKs by reason (1 crc, 2 out of order, 3 flash write).
        public var naksByReason: [UInt8: Int] = [:]
        /// Uploads from 0 after FINISH reported a corrupted bank.
        public var reuploads = 0
        public var framesSent = 0
        /// Frames sent more than once (after NAKs, timeouts and resumes).
        public var framesResent = 0
        public var timeouts = 0
        /// The frame the board answered the latest START with (0 for a fresh upload).
        public var lastStartSeq: UInt32 = 0
        /// A frame sent once per seq: the highest seq sent so far + 1.
        var highWater: UInt32 = 0
    }

    public init(image: Image, options: Options) {
        self.image = image
        self.options = options
        retriesLeft = options.retries
    }

    var startRequest: OTA.Request {
        .start(
            OTA.Start(
                size: image.size, crc32: image.crc32, version: image.version, batch: options.batch,
                window: UInt8(options.window)))
    }

    /// The frames the board has acknowledged and the image's frame count (0 of 0 before START is answered).
    public var progress: (acknowledged: UInt32, frames: UInt32) { acknowledged }

    public mutating func handle(_ event: Event) -> [Action] {
        switch (event, phase) {
        case (_, .done):
            return []
        case (.pause, _):
            paused = true
            return []
        case (.resume, _):
            paused = false
            return pump()
        case (.connected, .activating), (.connected, .verifying), (.connected, .checkingRollback):
            phase = .verifying
            return [.readFirmwareRevision]
        case (.connected, .idle), (.connected, .starting), (.connected, .streaming), (.connected, .finishing):
            if interrupted { statistics.resumes += 1 }
            interrupted = false
            phase = .starting
            retriesLeft = options.retries
            return [.writeControl(startRequest), .waitForNotification]
        case (.linkDown, .activating), (.linkDown, .verifying), (.linkDown, .checkingRollback):
            return [.reconnect]
        case (.linkDown, .idle), (.linkDown, .starting), (.linkDown, .streaming), (.linkDown, .finishing):
            interrupted = phase != .idle
            return [.reconnect]
        case (.notification(let n), _):
            return handle(n)
        case (.frameQueued, _):
            return pump()
        case (.timeout, .activating):
            return fail(.unanswered("ACTIVATE: the board did not reboot"))
        case (.timeout, .idle), (.timeout, .starting), (.timeout, .streaming), (.timeout, .finishing),
            (.timeout, .verifying), (.timeout, .checkingRollback):
            statistics.timeouts += 1
            return retry()
        case (.firmwareRevision(let text), .verifying):
            if text == image.version.description { return finish(.committed(image.version)) }
            phase = .checkingRollback(running: text)
            return [.writeControl(.status), .waitForNotification]
        case (.firmwareRevision, .idle), (.firmwareRevision, .starting), (.firmwareRevision, .streaming),
            (.firmwareRevision, .finishing), (.firmwareRevision, .activating), (.firmwareRevision, .checkingRollback):
            return []
        }
    }

    /// Each notification where it belongs; elsewhere it is late (an ACK or NAK after the phase moved on, a result
    /// of a request sent again): nothing to do but carry on.
    private mutating func handle(_ notification: OTA.Notification) -> [Action] {
        switch notification {
        case let .startResult(status, nextSeq, payload):
            guard phase == .starting else { return pump() }
            if status == .busy, retriesLeft > 0 {
                // A START sent again after a silence meets the erase the first one started: its answer comes.
                retriesLeft -= 1
                return [.waitForNotification]
            }
            guard status == .ok else { return fail(.startRefused(status)) }
            guard payload > 0 else { return fail(.protocolViolation("START answered max_payload 0")) }
            let frames = OTA.frameCount(size: image.size, maxPayload: Int(payload))
            guard nextSeq <= frames else {
                return fail(.protocolViolation("START answered next_seq \(nextSeq) for an image of \(frames) frames"))
            }
            statistics.lastStartSeq = nextSeq
            statistics.highWater = max(statistics.highWater, nextSeq)
            let window = Window(maxPayload: Int(payload), frames: frames, acked: nextSeq, nextToSend: nextSeq)
            acknowledged = (nextSeq, frames)
            if nextSeq == frames { return sendFinish() }
            phase = .streaming(window)
            return pump()
        case let .ack(nextSeq):
            guard case var .streaming(window) = phase else { return pump() }
            guard nextSeq <= window.frames, nextSeq <= statistics.highWater else {
                let sent = statistics.highWater
                return fail(
                    .protocolViolation("ACK of next_seq \(nextSeq): only \(sent) of \(window.frames) frames were sent"))
            }
            window.acked = max(window.acked, nextSeq)
            window.nextToSend = max(window.nextToSend, window.acked)
            acknowledged = (window.acked, window.frames)
            retriesLeft = options.retries
            if window.acked == window.frames { return sendFinish() }
            phase = .streaming(window)
            return pump()
        case let .nak(expected, reason):
            guard case var .streaming(window) = phase else { return pump() }
            statistics.naks += 1
            statistics.naksByReason[reason.rawValue, default: 0] += 1
            guard expected >= window.acked, expected <= window.frames else {
                return fail(.protocolViolation("NAK expects frame \(expected), but \(window.acked) were acknowledged"))
            }
            window.nextToSend = min(window.nextToSend, expected)
            phase = .streaming(window)
            return pump()
        case let .status(status):
            switch phase {
            case var .streaming(window):
                // The answer to STATUS after a silence: continue from what the board holds, or START again.
                if status.state == .receiving, status.size == image.size, status.crc32 == image.crc32 {
                    window.acked = max(window.acked, status.nextSeq)
                    window.nextToSend = status.nextSeq
                    acknowledged = (window.acked, window.frames)
                    phase = .streaming(window)
                    return pump()
                }
                phase = .starting
                return [.writeControl(startRequest), .waitForNotification]
            case .starting:
                return [.writeControl(startRequest), .waitForNotification]
            case let .checkingRollback(running):
                if status.state == .rolledBack { return finish(.rolledBack(running: running)) }
                if status.state == .verified, status.size == image.size, status.crc32 == image.crc32, activations < 2 {
                    // ACTIVATE never took effect (the link or the power went before otadata was written): again.
                    activations += 1
                    phase = .activating
                    return [.writeControl(.activate), .waitForReboot]
                }
                return fail(.notActivated(running: running, state: status.state))
            case .idle, .finishing, .activating, .verifying, .done:
                return []
            }
        case let .finishResult(status):
            guard phase == .finishing else { return pump() }
            if status == .ok {
                phase = .activating
                return [.writeControl(.activate), .waitForReboot]
            }
            if status == .flashVerifyFailed, statistics.reuploads < options.reuploads {
                statistics.reuploads += 1
                phase = .starting
                retriesLeft = options.retries
                return [.writeControl(startRequest), .waitForNotification]
            }
            return fail(.finishFailed(status))
        }
    }

    /// The next frame if the window has room, else a wait; nothing outside streaming.
    private mutating func pump() -> [Action] {
        guard case var .streaming(window) = phase else { return [] }
        let limit = min(UInt64(window.frames), UInt64(window.acked) + UInt64(options.window) * UInt64(options.batch))
        guard !paused, UInt64(window.nextToSend) < limit else { return [.waitForNotification] }
        let seq = window.nextToSend
        window.nextToSend += 1
        phase = .streaming(window)
        statistics.framesSent += 1
        if seq < statistics.highWater { statistics.framesResent += 1 } else { statistics.highWater = seq + 1 }
        return [.sendFrame(seq: seq, maxPayload: window.maxPayload)]
    }

    private mutating func sendFinish() -> [Action] {
        phase = .finishing
        retriesLeft = options.retries
        return [.writeControl(.finish), .waitForNotification]
    }

    /// A wait ran out: ask where the board is (streaming), or send the request again.
    private mutating func retry() -> [Action] {
        guard retriesLeft > 0 else {
            let what =
                switch phase {
                case .starting: "START"
                case .finishing: "FINISH"
                case .checkingRollback: "STATUS after the reboot"
                case .verifying: "Firmware Revision after the reboot"
                case .idle, .streaming, .activating, .done: "STATUS while streaming"
                }
            return fail(.unanswered(what))
        }
        retriesLeft -= 1
        switch phase {
        case .starting: return [.writeControl(startRequest), .waitForNotification]
        case .finishing: return [.writeControl(.finish), .waitForNotification]
        case .streaming, .checkingRollback: return [.writeControl(.status), .waitForNotification]
        case .idle, .activating, .verifying, .done: return []
        }
    }

    private mutating func finish(_ outcome: Outcome) -> [Action] {
        phase = .done
        return [.finished(outcome)]
    }

    private mutating func fail(_ failure: Failure) -> [Action] {
        phase = .done
        return [.failed(failure)]
    }
}
