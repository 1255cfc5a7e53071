import BLECore
import DeviceProfiles

/// What the esp-point's OTA keeps in flash (NVS and `otadata`): it survives resets and power loss.
struct OTAFlashState: Sendable {
    typealias OTA = EspPoint.OTA

    /// An update in progress, persisted at every ACK: a START with the same size and CRC resumes from `nextSeq`.
    struct Record: Sendable {
        var start: OTA.Start
        /// The frame payload the update uses; a resume answers it so frame k stays at offset k × maxPayload.
        var maxPayload: Int
        /// Frames in flash as of the last ACK.
        var nextSeq: UInt32
        /// The CRC-32 of the image bytes up to `nextSeq`, as they arrived.
        var crc: UInt32
        /// FINISH verified the image; ACTIVATE may boot it.
        var verified = false

        var frames: UInt32 { OTA.frameCount(size: start.size, maxPayload: maxPayload) }
    }

    var banks: FlashBanks
    var record: Record?
    /// What STATUS reports when no update is in progress: idle, committed or rolled back.
    var outcome = OTA.State.idle
    /// The size and CRC of the last image the board verified or activated (STATUS reports them when idle).
    var last: (size: UInt32, crc: UInt32) = (0, 0)
    /// The Ed25519 public key images must be signed with; nil: images are not signed (test firmware: `ota-key`).
    var signingKey: [UInt8]?
    /// Faults armed from the console (test firmware only: `ota-fault`), kept in flash so that a self-test fault
    /// survives the reboot into the new image.
    var faults = OTAFaults()
    /// The flash writes under way or queued (the flash chip's, not the app's: a reset does not stop them).
    var inFlight = FlashOperations()

    init(factory: FirmwareVersion) { banks = FlashBanks(factory: factory) }
}

/// One-shot faults the test firmware injects on request (`ota-fault ...` on the console).
struct OTAFaults: Sendable, Hashable {
    /// The data frame after this many more arrives corrupted (its CRC fails): NAK reason 1. 0: the next one.
    var crcAfterFrames: Int?
    /// The next flash program fails: NAK reason 3.
    var flashWrite = false
    /// A bit flips in the bank once the last frame is written: FINISH answers 4.
    var corruptBank = false
    /// The next activated image fails its self-test: the bootloader rolls back.
    var selfTest = false
    /// The board drops the link after this many more accepted frames.
    var dropAfterFrames: Int?
    /// The board drops the link instead of taking the image's last frame.
    var dropBeforeLast = false
}

/// The OTA session of one connection, and the flash pipeline: RAM, cleared at every boot.
struct OTARunState: Sendable {
    /// The connection that sent START, the next frame it may send, and whether frames are being discarded until
    /// that one arrives (after a NAK).
    var connection: GATTServer.ConnectionID?
    var expectedSeq: UInt32 = 0
    var discarding = false
    /// Frames programmed into flash (ahead of the record's `nextSeq` until the next ACK) and their running CRC.
    var flashedSeq: UInt32 = 0
    var crc = CRC32()
    var sinceAck = 0
    /// Bumped to void queued flash writes (a flash error, a resume).
    var epoch = 0
    /// When the flash finishes what it was given (erase, programs, verify).
    var flashBusyUntil = RigInstant.origin
    /// ACTIVATE is writing `otadata`; the board reboots when it is done.
    var activating = false
    /// Data frames without a START are logged once per boot.
    var strayFramesLogged = false
}
