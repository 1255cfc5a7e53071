import BLECore
import DeviceProfiles
import Synchronization

/// The shell around ``OTASender``: carries its actions out on esp-point sessions. Frames are read from the image
/// file as they are sent (a read-ahead block at a time), written without response (suspending while the link is
/// full), and every notification already received is handed to the sender before the next frame, so a NAK
/// rewinds at once. A lost link is followed by a reconnect (through `connect`, which also authenticates) and a
/// START that resumes from the board's persisted next_seq; after ACTIVATE the board reboots and the shell
/// reconnects to read Firmware Revision.
///
/// No abort: ``OTAPauseSwitch`` pauses (no new frames; frames in flight are still acknowledged) and resumes. A
/// caller that stops altogether — cancels the task — leaves the board's state resumable by the next transfer.
public struct OTATransfer: Sendable {
    /// Opens an authenticated esp-point session and runs the body with it; the link closes when the body returns.
    public typealias Connect = (_ body: (ProfileSession) async throws -> Void) async throws -> Void

    public let image: OTAImageFile
    public let options: OTASender.Options
    public let clock: any RigClock
    /// How long to wait for an ACK or a control result before asking again (STATUS, or the request resent).
    public var responseTimeout: Duration = .seconds(10)
    /// How long to wait for START's answer: the board erases the image's region first (2.4 s per MiB on the
    /// model's flash, so 29 s for a 12 MiB bank).
    public var startTimeout: Duration = .seconds(60)
    /// How long the board may take to reboot after ACTIVATE (the link's supervision timeout is in it).
    public var rebootTimeout: Duration = .seconds(40)
    /// Consecutive failed connection attempts before giving up (the board keeps its state for a later resume).
    public var reconnectAttempts = 8
    /// The first pause between reconnection attempts; it doubles each time, up to 8 s.
    public var reconnectBackoff: Duration = .milliseconds(500)
    public var pause: OTAPauseSwitch?
    /// Called each time ACTIVATE has been written (the board reboots into the image): an app's connection machine
    /// expects the link's end that follows; a test may cut the power here.
    public var activated: (@Sendable () async -> Void)?

    public init(image: OTAImageFile, options: OTASender.Options, clock: any RigClock) {
        self.image = image
        self.options = options
        self.clock = clock
    }

    /// Where an update stands, handed to the progress callback at every ACK and phase change.
    public struct Progress: Sendable, Hashable {
        public var acknowledged: UInt32
        public var frames: UInt32
        public var resumes: Int
    }

    /// Runs the update to its end: committed or rolled back. Throws ``OTAError`` when the board refuses or fails
    /// it, or cannot be reached.
    public func run(
        connect: Connect, progress: (@Sendable (Progress) async -> Void)? = nil
    ) async throws(OTAError) -> OTAReport {
        var sender = OTASender(image: image.image, options: options)
        var report = OTAReport(image: image.image, window: options.window, batch: options.batch)
        report.requested = clock.now
        var failures = 0
        var lastError = ""
        var pending: [OTASender.Action] = [.reconnect]
        var outcome: OTASender.Outcome?
        while outcome == nil {
            if Task.isCancelled {
                throw .session("the update was stopped (it resumes from the board's state next time)")
            }
            do {
                var sessionError: OTAError?
                try await connect { session in
                    failures = 0
                    do throws(OTAError) {
                        pending = sender.handle(.connected)
                        outcome = try await drive(
                            session, sender: &sender, pending: &pending, report: &report, progress: progress)
                    } catch { sessionError = error }
                }
                if let sessionError { throw sessionError }
            } catch let error as OTAError {
                throw error
            } catch {
                // The connection, the handshake or the authentication failed: try again after a pause.
                failures += 1
                lastError = "\(error)"
                guard failures < reconnectAttempts else {
                    report.finish(sender, at: clock.now)
                    throw .unreachable(attempts: failures, lastError: lastError)
                }
                let backoff = min(reconnectBackoff * (1 << min(failures - 1, 4)), .seconds(8))
                do { try await clock.sleep(for: backoff) } catch {
                    throw .session("the update was stopped while reconnecting")
                }
                continue
            }
            if outcome == nil, pending.first != .reconnect {
                throw .session("the session ended before the update did")
            }
        }
        report.outcome = outcome
        report.finish(sender, at: clock.now)
        return report
    }

    /// Carries out actions on one session until the update is done (returns the outcome) or the link is lost
    /// (returns nil with `.reconnect` pending).
    private func drive(
        _ session: ProfileSession, sender: inout OTASender, pending: inout [OTASender.Action], report: inout OTAReport,
        progress: (@Sendable (Progress) async -> Void)?
    ) async throws(OTAError) -> OTASender.Outcome? {
        let inbox: Inbox
        do { inbox = try await session.ensureSubscribed(EspPoint.otaControl) } catch { throw .session("\(error)") }
        _ = inbox.drain()
        var lastReported: UInt32 = .max
        var lastWasStart = false
        func feed(_ event: OTASender.Event) {
            let actions = sender.handle(event)
            // New actions supersede a queued wait: the event it waited for (or a better one) has come.
            if !actions.isEmpty { pending.removeAll { $0 == .waitForNotification || $0 == .waitForReboot } }
            pending += actions
        }
        func take(_ value: [UInt8]) throws(OTAError) {
            let notification: EspPoint.OTA.Notification
            do { notification = try EspPoint.OTA.Notification(decoding: value) } catch {
                throw .failed(.protocolViolation("\(error)"))
            }
            if case .startResult(.ok, _, _) = notification, report.transferStarted == nil {
                report.transferStarted = clock.now
            }
            feed(.notification(notification))
            if case let .ack(nextSeq) = notification, nextSeq == sender.progress.frames {
                report.transferEnded = clock.now
            }
        }
        while !pending.isEmpty {
            let action = pending.removeFirst()
            let (acked, frames) = sender.progress
            if let progress, acked != lastReported {
                lastReported = acked
                await progress(Progress(acknowledged: acked, frames: frames, resumes: sender.statistics.resumes))
            }
            switch action {
            case let .writeControl(request):
                do { try await session.write(request.encoded, to: EspPoint.otaControl) } catch {
                    guard case .gatt(.disconnected, _) = error else { throw .session("\(error)") }
                    pending.removeAll()
                    feed(.linkDown)
                    continue
                }
                if request == .activate {
                    report.activated = clock.now
                    await activated?()
                }
                if case .start = request { lastWasStart = true } else { lastWasStart = false }
            case let .sendFrame(seq, maxPayload):
                let frame = EspPoint.OTA.Frame.encode(
                    seq: seq, payload: try image.payload(seq: seq, maxPayload: maxPayload))
                do { try await session.writeWithoutResponse(frame, to: EspPoint.otaData) } catch {
                    guard case .gatt(.disconnected, _) = error else { throw .session("\(error)") }
                    pending.removeAll()
                    feed(.linkDown)
                    continue
                }
                for event in inbox.drain() { try take(event.value) }
                if let pause, pause.isPaused {
                    feed(.pause)
                    await pause.waitUntilResumed()
                    feed(.resume)
                }
                feed(.frameQueued)
            case .waitForNotification, .waitForReboot:
                let timeout =
                    action == .waitForReboot ? rebootTimeout : lastWasStart ? startTimeout : responseTimeout
                do {
                    let event = try await inbox.next(
                        within: timeout, clock: clock, waitingFor: "an OTA Control notification")
                    try take(event.value)
                } catch let error as SessionError {
                    switch error {
                    case .linkClosed: feed(.linkDown)
                    case .timeout: feed(.timeout)
                    default: throw .session("\(error)")
                    }
                } catch let error as OTAError {
                    throw error
                } catch {
                    throw .session("\(error)")
                }
            case .reconnect:
                pending = [.reconnect]
                return nil
            case .readFirmwareRevision:
                do {
                    let text = String(decoding: try await session.read(StandardUUID.firmwareRevision), as: UTF8.self)
                    report.runningAfter = text
                    feed(.firmwareRevision(text))
                } catch { throw .session("\(error)") }
            case let .finished(outcome):
                return outcome
            case let .failed(failure):
                report.finish(sender, at: clock.now)
                throw .failed(failure)
            }
        }
        throw .session("the OTA sender stopped without an outcome")
    }
}

/// Pauses an update from outside: no new frames while paused (no abort: frames in flight are still
/// acknowledged, and the board keeps its state).
public final class OTAPauseSwitch: Sendable {
    private let state = Mutex<(paused: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    public init() {}

    public var isPaused: Bool { state.withLock { $0.paused } }

    public func pause() { state.withLock { $0.paused = true } }

    public func resume() {
        let waiters = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            s.paused = false
            defer { s.waiters = [] }
            return s.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    func waitUntilResumed() async {
        await withCheckedContinuation { continuation in
            let now = state.withLock { s -> Bool in
                guard s.paused else { return true }
                s.waiters.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }
}
