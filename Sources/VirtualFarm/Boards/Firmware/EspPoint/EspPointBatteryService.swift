import BLECore
import DeviceProfiles

/// The Battery service (Battery Level, read and notify) and the cell behind it. The cell is physics: it drains
/// whatever the board does, faster while a central is connected, and carries on over resets. The firmware looks at
/// the gauge every ``pollInterval`` and notifies Battery Level when the whole percent changed since it was last
/// reported (or since boot).
final class EspPointBatteryService {
    /// How often the firmware looks at the battery gauge.
    static let pollInterval: Duration = .seconds(60)
    /// The radio drains the cell this many times faster while a central is connected.
    static let connectedDrainFactor = 4.0

    weak var board: VirtualBoard?
    /// Whether a central is connected now (the drain since the last update is counted at that rate).
    private let centralConnected: () -> Bool

    // MARK: Physics

    private(set) var cell: Battery
    private var updatedAt: RigInstant?

    // MARK: RAM

    /// The Battery Level at boot or last notified: it is notified only when the whole percent changes.
    private var reportedPercent: UInt8?

    init(percent: Double, centralConnected: @escaping () -> Bool) {
        cell = Battery(level: percent)
        self.centralConnected = centralConnected
    }

    /// Boot: the gauge is read as it stands, the reported level is the current one.
    func rebooted(at now: RigInstant) {
        updatedAt = now
        reportedPercent = cell.percent
    }

    /// Starts looking at the gauge every ``pollInterval`` (until the board resets).
    func startPolling() {
        board?.every(Self.pollInterval) { [weak self] in self?.poll() }
    }

    /// Drains the cell for the time since it was last updated, faster while a central is connected.
    func update() {
        guard let board else { return }
        let now = board.sim.now
        if let since = updatedAt {
            let elapsed = since.duration(to: now)
            cell.drain(over: centralConnected() ? elapsed * Self.connectedDrainFactor : elapsed)
        }
        updatedAt = now
    }

    /// A read of Battery Level.
    func readLevel() -> [UInt8] {
        update()
        return [cell.percent]
    }

    /// Notifies Battery Level if its whole percent changed since it was last reported.
    func notifyIfChanged() {
        let percent = cell.percent
        guard percent != reportedPercent else { return }
        reportedPercent = percent
        board?.notify(StandardUUID.batteryLevel, in: StandardUUID.battery, [percent])
    }

    private func poll() {
        update()
        notifyIfChanged()
    }
}
