import BLECore
import BenchCore
import CentralStack
import DeviceProfiles
import Foundation
import Reports

/// `ota`: firmware updates of an esp-point through the central stack's OTA sender, with the contract's failure
/// modes injected through the bench's capabilities only (so the suite runs unchanged on hardware): the test
/// firmware's console (`ota-fault ...`, `ota-key ...`) and the power switch.
///
/// Every update goes through the app's central (``AppCentral/update(to:options:progress:activated:)``): its
/// connection machine connects on demand, passes through `firmwareUpdating` while the image goes up and back to
/// `pairedConnected` at activation, and every check fails when it did not (``OTARun/expectMachinePath(since:)``).
///
/// Checks, each an update of a freshly generated image streamed from disk: a clean update (must commit on the
/// first try: no resume, no NAK); resume after the board drops the link mid-way, and just before the last frame;
/// a corrupted frame (NAK reason 1, rewind); power lost mid-write (resume from the persisted next_seq); power lost
/// just after ACTIVATE (the board boots a bank it can run and the update still ends on the new image); a bank
/// that fails verification (FINISH 4, uploaded again); a tampered and an unsigned image refused by a board holding
/// a key (FINISH 3), a signed one accepted; a self-test failure (rollback reported, old version running); and back
/// to the firmware the board started with, so later suites find a known firmware and the rig's key still valid.
/// Every number carries its definition (``OTASuite/Metric``).
struct OTASuite: Suite {
    static let name = "ota"
    /// Image size in bytes: small by default, so the suite takes seconds of wall time on the virtual farm.
    var imageSize = 48 * 1024
    var window = 4
    var batch: UInt8 = 10

    init(options: inout RigMappingReader) {
        if let kib = options.integer("image_kib", in: 1...(12 * 1024)) { imageSize = kib * 1024 }
        if let window = options.integer("window", in: 1...255) { self.window = window }
        if let batch = options.integer("batch", in: 1...255) { self.batch = UInt8(batch) }
    }

    init(imageSize: Int, window: Int, batch: UInt8) {
        self.imageSize = imageSize
        self.window = window
        self.batch = batch
    }

    /// An update's erase (2.4 s per MiB), transfer (stop-and-wait is slowest: some 40 kB/s at 15 ms), reboot and
    /// reconnects, twice over for the checks that upload twice, with room to spare.
    var defaultCheckTimeout: Duration { .seconds(300) + .seconds(2 * imageSize / 4_000) }

    /// The checks, in the order they run.
    enum Check: String, SuiteChecks {
        case clean = "clean update"
        case resumeAfterDisconnect = "resume after a disconnect"
        case resumeBeforeLastFrame = "resume after a drop before the last frame"
        case crc = "CRC corruption: NAK and rewind"
        case powerLossMidWrite = "power loss mid-write, then resume"
        case powerLossActivating = "power loss during activation"
        case corruptedFlash = "corrupted flash: verify fails, upload again"
        case signatures = "tampered and unsigned images rejected"
        case selfTest = "self-test failure rolls back"
        case original = "back to the original firmware"
        case successRate = "success rate"
    }

    static var checkNames: [String] { Check.names }

    func checkNames(for profile: Profile) -> [String] { profile == .espPoint ? Self.checkNames : [] }

    func run(on board: BoardUnderTest) async {
        guard board.profile == .espPoint else {
            for name in Self.checkNames {
                board.recorder.notApplicable(Self.name, name, reason: "\(board.profile) boards have no OTA")
            }
            return
        }
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("blerig-ota-\(board.id)-\(UUID().uuidString)").path
        do { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) } catch {
            return await board.failFirst(
                Self.name, Check.self, message: "\(board.place): cannot create the image directory \(directory): \(error)",
                skipping: "no image directory")
        }
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let watch = ConnectionWatch()
        let app = board.appCentral(purpose: "ota") { watch.add($0) }
        do {
            try await app.running { app in
                await OTARun(suite: self, board: board, app: app, watch: watch, directory: directory).all()
            }
        } catch {
            board.recorder.log(.warning, "central", "the app central ended with: \(error)")
        }
    }
}
