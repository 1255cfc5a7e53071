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
/// Checks, each an update of a freshly generated image streamed from disk: a clean update (must commit on the
/// first try: no resume, no NAK); resume after the board drops the link mid-way, and just before the last frame;
/// a corrupted frame (NAK reason 1, rewind); power lost mid-write (resume from the persisted next_seq); a bank
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

    static let checkNames = [
        "clean update", "resume after a disconnect", "resume after a drop before the last frame",
        "CRC corruption: NAK and rewind", "power loss mid-write, then resume",
        "corrupted flash: verify fails, upload again",
        "tampered and unsigned images rejected", "self-test failure rolls back", "back to the original firmware",
        "success rate",
    ]

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
            await board.check(Self.name, Self.checkNames[0]) {
                throw CheckFailure("\(board.place): cannot create the image directory \(directory): \(error)")
            }
            for name in Self.checkNames.dropFirst() {
                board.recorder.skip(Self.name, name, reason: "no image directory")
            }
            return
        }
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let run = OTARun(suite: self, board: board, directory: directory)
        await run.all()
    }
}
