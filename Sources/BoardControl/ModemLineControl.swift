import BLECore
import BenchCore

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
                do { try await clock.sleep(for: duration) } catch {
                    throw BenchError(.cancelled, "reset sequence \(sequence) cancelled during its \(step)")
                }
            }
        }
    }
}
