import BLECore
import BenchCore
import Foundation
import Glibc
import Synchronization

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
        guard clock is WallClock else {
            for step in sequence.steps {
                if case .wait(let duration) = step {
                    do { try await clock.sleep(for: duration, tolerance: .zero) } catch {
                        throw BenchError(.cancelled, "reset sequence \(sequence) cancelled during its \(step)")
                    }
                } else {
                    try Self.apply(step, to: lines)
                }
            }
            return
        }
        // On the wall clock the whole sequence is played on a thread of its own, as esptool plays it: line changes
        // and waits back to back, with no trip through the executor between them (on a loaded host a task resumed
        // after a 0.1 s wait came back 10 to 25 ms late, seen in the kernel tier).
        let cancelled = CancelFlag()
        let result: Result<Void, BenchError> = await withTaskCancellationHandler {
            await withCheckedContinuation { (done: CheckedContinuation<Result<Void, BenchError>, Never>) in
                let thread = Thread {
                    done.resume(returning: Self.playBlocking(sequence, on: lines, cancelled: cancelled))
                }
                thread.name = "blerig reset"
                thread.start()
            }
        } onCancel: {
            cancelled.set()
        }
        try result.get()
    }

    /// One line change: `D` and `R` read the lines and set the one changed, `U` sets both in one TIOCMSET.
    static func apply(_ step: ResetSequence.Step, to lines: any ModemLineControl) throws(BenchError) {
        var state = try lines.modemLines()
        switch step {
        case .dtr(let on): state.dtrOn = on
        case .rts(let on): state.rtsOn = on
        case .lines(let dtr, let rts): (state.dtrOn, state.rtsOn) = (dtr, rts)
        case .wait: return
        }
        try lines.setModemLines(state)
    }

    /// The sequence on the calling thread, waits slept with nanosleep; stops between steps once `cancelled`.
    static func playBlocking(
        _ sequence: ResetSequence, on lines: any ModemLineControl, cancelled: CancelFlag
    ) -> Result<Void, BenchError> {
        for step in sequence.steps {
            if cancelled.isSet {
                return .failure(BenchError(.cancelled, "reset sequence \(sequence) cancelled before its \(step)"))
            }
            do throws(BenchError) {
                if case .wait(let duration) = step { sleepPrecisely(duration) } else { try apply(step, to: lines) }
            } catch {
                return .failure(error)
            }
        }
        return .success(())
    }

    /// Sleeps `duration` on this thread, again after an interruption, until it has passed.
    static func sleepPrecisely(_ duration: Duration) {
        let deadline = ContinuousClock.now.advanced(by: duration)
        while true {
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero else { return }
            var request = timespec(
                tv_sec: Int(left.components.seconds), tv_nsec: Int(left.components.attoseconds / 1_000_000_000))
            _ = nanosleep(&request, nil)
        }
    }
}

/// A flag set once from any thread (a reset sequence's cancellation).
final class CancelFlag: Sendable {
    private let value = Mutex(false)
    func set() { value.withLock { $0 = true } }
    var isSet: Bool { value.withLock { $0 } }
}
