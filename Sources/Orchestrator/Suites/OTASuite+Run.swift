import BLECore
import BenchCore
import CentralStack
import DeviceProfiles
import Foundation
import Reports
import Synchronization

/// One board's pass through the `ota` suite: the images, the updates and what they added up to.
struct OTARun: Sendable {
    let suite: OTASuite
    let board: BoardUnderTest
    /// The app's central every update and read goes through, and the transitions of its machine.
    let app: AppCentral
    let watch: ConnectionWatch
    let directory: String
    let tally = Locked(Tally())

    struct Tally: Sendable {
        /// The firmware the board ran when the suite began.
        var original: String?
        /// The version the board runs now, as far as the suite knows.
        var current: String?
        /// Updates that should have committed: how many did on the first try (no resume, no re-upload), and
        /// how many did at all.
        var attempts = 0
        var firstTry = 0
        var eventually = 0
        var images = 0
    }

    init(suite: OTASuite, board: BoardUnderTest, app: AppCentral, watch: ConnectionWatch, directory: String) {
        self.suite = suite
        self.board = board
        self.app = app
        self.watch = watch
        self.directory = directory
    }

    var name: String { OTASuite.name }

    func tallyOriginal(_ version: String) {
        tally.withLock { t in
            if t.original == nil { t.original = version }
            t.current = version
        }
    }

    func tallyCurrent() -> String { tally.withLock { $0.current ?? "" } }

    func tallySuccess() -> (attempts: Int, firstTry: Int, eventually: Int) {
        tally.withLock { ($0.attempts, $0.firstTry, $0.eventually) }
    }

    func all() async {
        typealias Check = OTASuite.Check
        await board.check(name, Check.clean.rawValue) { try await cleanUpdate() }
        guard tally.withLock({ $0.original }) != nil else {
            return board.skip(
                name, Check.names.dropFirst(), reason: "the board's firmware version could not be read")
        }
        await faultCheck(.resumeAfterDisconnect, console: ["ota-fault drop \(frames / 2)"]) { report in
            try expectResumed(report, .resumeAfterDisconnect)
            return [Metric.resumes(report)]
        }
        await faultCheck(.resumeBeforeLastFrame, console: ["ota-fault drop last"]) { report in
            try expectResumed(report, .resumeBeforeLastFrame)
            guard report.statistics.lastStartSeq + UInt32(suite.batch) >= frames else {
                throw CheckFailure(
                    "\(board.place): the resume started at frame \(report.statistics.lastStartSeq) of \(frames): "
                        + "more than one batch was lost")
            }
            return [Metric.resumes(report)]
        }
        // Armed before the transfer, on a frame a third of the way in: a fault armed during the transfer comes too
        // late whenever the rest of the image is already in flight (a window holds 40 frames).
        await faultCheck(.crc, console: ["ota-fault crc \(frames / 3)"]) { report in
            guard report.statistics.naksByReason[1, default: 0] >= 1, report.statistics.framesResent >= 1 else {
                throw CheckFailure(
                    "\(board.place): a corrupted frame brought no NAK with reason 1 and no resent frame "
                        + "(NAKs \(report.statistics.naksByReason), resent \(report.statistics.framesResent))")
            }
            return [Metric.naks(report), Metric.resent(report)]
        }
        await powerLossCheck(.powerLossMidWrite)
        await activationPowerLossCheck(.powerLossActivating)
        await faultCheck(.corruptedFlash, console: ["ota-fault corrupt"]) { report in
            guard report.statistics.reuploads == 1 else {
                throw CheckFailure(
                    "\(board.place): FINISH should have failed verification once and the image gone up again; "
                        + "re-uploads: \(report.statistics.reuploads)")
            }
            return []
        }
        await board.check(name, Check.signatures.rawValue) { try await signedImages() }
        await board.check(name, Check.selfTest.rawValue) { try await selfTestFailure() }
        await board.check(name, Check.original.rawValue) {
            let original = tally.withLock { $0.original } ?? ""
            guard let version = FirmwareVersion(original) else {
                throw CheckFailure(
                    "\(board.place): the board started on '\(original)', not a version an image can carry")
            }
            let report = try await committedUpdate(version: version)
            return [Metric.duration(report)]
        }
        await board.check(name, Check.successRate.rawValue) { try successRate() }
    }

    /// Frames of a suite image at MTU 247 (236 bytes a frame).
    var frames: UInt32 { EspPoint.OTA.frameCount(size: UInt32(suite.imageSize), maxPayload: 236) }

    // MARK: Updates

    /// A fresh image (version `9.<n>.0` unless given), uploaded with the suite's window and batch.
    func update(
        version: FirmwareVersion? = nil, signingKey: OTASigningKey? = nil, tamper: Bool = false,
        progress: (@Sendable (OTATransfer.Progress) async -> Void)? = nil,
        activated: (@Sendable () async -> Void)? = nil
    ) async throws -> OTAReport {
        let n = tally.withLock { t -> Int in
            t.images += 1
            return t.images
        }
        let version = version ?? FirmwareVersion(9, UInt8(truncatingIfNeeded: n), 0)
        let path = "\(directory)/image-\(n)-\(version).bin"
        try OTAImageBuilder.write(
            to: path, size: suite.imageSize, seed: board.seed &+ UInt64(n), signingKey: signingKey)
        defer { try? FileManager.default.removeItem(atPath: path) }
        if tamper { try OTAImageBuilder.tamper(path, at: UInt64(suite.imageSize / 3)) }
        let image = try OTAImageFile(path: path, version: version)
        board.recorder.log(
            .info, "ota",
            "updating to \(version): \(suite.imageSize) bytes, CRC 0x\(String(image.crc32, radix: 16)), "
                + "window \(suite.window), batch \(suite.batch)")
        let mark = watch.transitions.count
        let report = try await app.update(
            to: image, options: OTASender.Options(window: suite.window, batch: suite.batch), progress: progress,
            activated: activated)
        if let running = report.runningAfter { tally.withLock { $0.current = running } }
        board.recorder.log(.info, "ota", Self.summary(report))
        try expectMachinePath(since: mark, report: report)
        return report
    }

    static func summary(_ report: OTAReport) -> String {
        let outcome = report.outcome.map { "\($0)" } ?? "no outcome"
        return "\(outcome) after \(report.duration.seconds) s; resumes \(report.statistics.resumes), NAKs "
            + "\(report.statistics.naks), re-uploads \(report.statistics.reuploads), frames sent "
            + "\(report.statistics.framesSent) (\(report.statistics.framesResent) resent)"
    }

    /// The update must have committed: Firmware Revision shows its version. Counts towards the success rate.
    ///
    /// It returns nothing on purpose: as `throws -> OTAReport` handing back its argument, Swift 6.3.1's release
    /// build left the copy's address in the error register on success (LLVM reused r12 before a tail-called
    /// memcpy), so every committed update read as a thrown garbage error.
    func expectCommitted(_ report: OTAReport) throws {
        let firstTry = report.statistics.resumes == 0 && report.statistics.reuploads == 0
        guard case .committed(let version)? = report.outcome, report.runningAfter == version.description else {
            tally.withLock { $0.attempts += 1 }
            throw CheckFailure(
                "\(board.place): the update to \(report.image.version) did not commit: "
                    + "\(report.outcome.map { "\($0)" } ?? "no outcome"), Firmware Revision "
                    + "'\(report.runningAfter ?? "?")'")
        }
        tally.withLock { t in
            t.attempts += 1
            t.eventually += 1
            if firstTry { t.firstTry += 1 }
        }
    }

    /// An update that must commit (``expectCommitted(_:)``); one that fails with an error before an outcome counts
    /// as attempted too.
    func committedUpdate(
        version: FirmwareVersion? = nil, signingKey: OTASigningKey? = nil, progress: (@Sendable (OTATransfer.Progress) async -> Void)? = nil,
        activated: (@Sendable () async -> Void)? = nil
    ) async throws -> OTAReport {
        let report: OTAReport
        do {
            report = try await update(version: version, signingKey: signingKey, progress: progress, activated: activated)
        } catch let error as CheckFailure {
            throw error
        } catch {
            tally.withLock { $0.attempts += 1 }
            throw CheckFailure("\(board.place): \(error)")
        }
        try expectCommitted(report)
        return report
    }

    /// The app's machine went `pairedConnected → firmwareUpdating` for the update and back to `pairedConnected`
    /// when ACTIVATE was written (or, for an update that ended before ACTIVATE, when it failed).
    func expectMachinePath(since mark: Int, report: OTAReport) throws {
        let path = watch.transitions.dropFirst(mark)
        let began = path.contains { $0.from == .pairedConnected && $0.to == .firmwareUpdating }
        let back = path.contains {
            $0.from == .firmwareUpdating && $0.to == .pairedConnected
                && (report.activated == nil || $0.cause.hasPrefix("image activated"))
        }
        guard began, back else {
            let seen = path.map { "\($0.from) → \($0.to) (\($0.cause))" }.joined(separator: "; ")
            throw CheckFailure(
                "\(board.place): the app's connection machine did not pass through firmwareUpdating and back to "
                    + "pairedConnected at activation during the update to \(report.image.version): \(seen)")
        }
    }

    func expectResumed(_ report: OTAReport, _ check: OTASuite.Check) throws {
        guard report.statistics.resumes >= 1, report.statistics.lastStartSeq > 0 else {
            throw CheckFailure(
                "\(board.place): \(check.rawValue): the update did not resume from the board's next_seq (resumes "
                    + "\(report.statistics.resumes), last START answered next_seq \(report.statistics.lastStartSeq))")
        }
    }

    func console(_ lines: [String]) async throws {
        guard let console = board.bench.console else { throw CheckFailure("no console") }
        for line in lines { try await console.send(line) }
    }
}

/// A value behind a mutex that a copyable value can hold.
final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>
    init(_ value: Value) { mutex = Mutex(value) }
    func withLock<R>(_ body: (inout Value) -> R) -> R { mutex.withLock { body(&$0) } }
}
