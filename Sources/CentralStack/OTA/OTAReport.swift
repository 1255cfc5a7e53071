import BLECore
import DeviceProfiles

/// What one update did and how long it took, on the radio's clock.
public struct OTAReport: Sendable {
    public var image: OTASender.Image
    public var window: Int
    public var batch: UInt8
    /// The transfer was asked for (before the first connection).
    public var requested = RigInstant.origin
    /// The first START answered ok (after the board erased the bank).
    public var transferStarted: RigInstant?
    /// The ACK of the image's last frame.
    public var transferEnded: RigInstant?
    /// ACTIVATE written.
    public var activated: RigInstant?
    /// The outcome known (Firmware Revision read after the reboot, or the failure).
    public var finished = RigInstant.origin
    public var outcome: OTASender.Outcome?
    /// Firmware Revision after the reboot.
    public var runningAfter: String?
    public var statistics = OTASender.Statistics()

    init(image: OTASender.Image, window: Int, batch: UInt8) {
        self.image = image
        self.window = window
        self.batch = batch
    }

    mutating func finish(_ sender: OTASender, at instant: RigInstant) {
        statistics = sender.statistics
        finished = instant
    }

    /// START answered ok → the last frame acknowledged (what `ota.throughput_kBps` divides the image by).
    public var transferDuration: Duration? {
        guard let transferStarted, let transferEnded else { return nil }
        return transferStarted.duration(to: transferEnded)
    }

    /// Image bytes per second over ``transferDuration``.
    public var throughput: Double? {
        guard let seconds = transferDuration?.seconds, seconds > 0 else { return nil }
        return Double(image.size) / seconds
    }

    /// The transfer asked for → the outcome known (erase, transfer, verify, reboot, reconnect, Firmware Revision).
    public var duration: Duration { requested.duration(to: finished) }
}
