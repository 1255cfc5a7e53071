import BLECore
import BenchCore
import Glibc

/// The modem lines of an open port: what a reset sequence drives. ``SerialPort`` is one; tests record every
/// TIOCMSET with the time it happened.
public protocol ModemLineControl: Sendable {
    /// TIOCMGET.
    func modemLines() throws(BenchError) -> ModemLines
    /// TIOCMSET.
    func setModemLines(_ lines: ModemLines) throws(BenchError)
}

extension SerialPort: ModemLineControl {}

/// Plays a ``ResetSequence`` on a port's modem lines, as esptool does: `D` and `R` read the lines and set the one
/// changed (pyserial's setDTR/setRTS), `U` sets both in one TIOCMSET (esptool's `_setDTRandRTS`), and `W` waits
/// on `clock`.
public struct ResetSequencePlayer: Sendable {
    public let clock: any RigClock

    public init(clock: any RigClock) { self.clock = clock }

    public func play(_ sequence: ResetSequence, on lines: any ModemLineControl) async throws(BenchError) {
        for step in sequence.steps {
            switch step {
            case .dtr(let on):
                var state = try lines.modemLines()
                state.dtrOn = on
                try lines.setModemLines(state)
            case .rts(let on):
                var state = try lines.modemLines()
                state.rtsOn = on
                try lines.setModemLines(state)
            case .lines(let dtr, let rts):
                var state = try lines.modemLines()
                state.dtrOn = dtr
                state.rtsOn = rts
                try lines.setModemLines(state)
            case .wait(let duration):
                do { try await wait(duration) } catch {
                    throw BenchError(.cancelled, "reset sequence \(sequence) cancelled during its \(step)")
                }
            }
        }
    }

    /// The last stretch of a wait on the wall clock, slept on the calling thread.
    static let fineWindow: Duration = .milliseconds(15)

    /// A wait as precise as esptool's `time.sleep`: without tolerance (a timer may otherwise fire a tenth of its
    /// wait late, libdispatch's leeway), and on the wall clock its last ``fineWindow`` slept on this thread, since
    /// resuming a task through the executor costs milliseconds in a loaded host (seen in the kernel tier: blerig's
    /// 0.1 s waits 5 to 10 ms longer than esptool's before this).
    private func wait(_ duration: Duration) async throws {
        guard clock is WallClock else { return try await clock.sleep(for: duration, tolerance: .zero) }
        let deadline = ContinuousClock.now.advanced(by: duration)
        if duration > Self.fineWindow {
            try await ContinuousClock().sleep(until: deadline.advanced(by: .zero - Self.fineWindow), tolerance: .zero)
        }
        while true {
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero else { return }
            var request = timespec(
                tv_sec: Int(left.components.seconds), tv_nsec: Int(left.components.attoseconds / 1_000_000_000))
            _ = nanosleep(&request, nil)
        }
    }
}
