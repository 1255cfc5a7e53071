import BLECore
import DeviceProfiles

/// The esp-point's RTC: the unix time, which the central sets (SET_TIME) and the firmware stamps its records with.
/// The RTC domain survives resets but not power loss: after power-on it counts from ``powerOnUnixTime``.
final class EspPointClock {
    /// 2026-01-01T00:00:00Z: what the RTC counts from after power-on until the central sets the time.
    static let powerOnUnixTime: UInt32 = 1_767_225_600

    weak var board: VirtualBoard?
    /// The unix time at a known instant; the RTC counts on from there.
    private var base: (unix: UInt32, at: RigInstant)?

    /// Boot: after a power-on (or on a board that never kept the time) the RTC starts again from
    /// ``powerOnUnixTime`` at the moment the chip came out of reset.
    func rebooted(on board: VirtualBoard, reason: ConsoleLine.ResetReason) {
        if reason == .powerOn || base == nil {
            base = (Self.powerOnUnixTime, board.sim.now.advanced(by: .zero - board.uptime))
        }
    }

    /// The RTC's unix time now.
    var unixTime: UInt32 {
        guard let board, let base else { return Self.powerOnUnixTime }
        let elapsed = max(0, base.at.duration(to: board.sim.now).seconds)
        return base.unix &+ UInt32(truncatingIfNeeded: Int64(elapsed.rounded(.down)))
    }

    /// SET_TIME.
    func set(unix: UInt32) {
        guard let board else { return }
        base = (unix, board.sim.now)
    }
}
