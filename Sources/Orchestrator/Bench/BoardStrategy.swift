import BLECore
import BenchCore
import Reports

/// Brings one board to a known state with the capabilities it has, and takes it out of the run when it cannot:
/// power it on cold (or reset it, or take it as it is), wait until it is heard on the air, and if it is not,
/// power-cycle it once before giving up. At the end of the run it leaves the board as the rig says.
struct BoardStrategy: Sendable {
    let board: BenchBoard
    /// Where the rig file defines the board, for messages: `rigs/virtual.yaml:14:5`.
    let place: String
    let recorder: CheckRecorder
    let console: ConsoleMonitor
    let clock: any RigClock
    /// How long a board may take from power-on to its first advertisement.
    let reachTimeout: Duration

    /// Powers the board on from a known state and waits for its first advertisement on `central`. Returns the
    /// advertisement, or throws a ``CheckFailure`` that says what was tried and what was seen.
    func bringUp(scanningWith central: any Central) async throws -> (Advertisement, poweredAt: RigInstant) {
        var attempts: [String] = []
        for attempt in 1...2 {
            let poweredAt = clock.now
            try await start(retry: attempt > 1)
            if let report = try await Preflight.firstAdvertisement(
                of: board.match, on: central, clock: clock, within: reachTimeout)
            {
                recorder.move(
                    to: .advertising,
                    reason: "first advertisement after \(poweredAt.duration(to: report.received).msText)")
                return (report, poweredAt)
            }
            attempts.append(describeSilence(since: poweredAt))
            try Task.checkCancellation()
            guard board.power != nil || board.reset != nil else { break }
        }
        throw CheckFailure(
            "\(place): board \(board.id) is unreachable: no advertisement from \(board.match) within "
                + "\(reachTimeout.seconds) s; \(attempts.joined(separator: "; then "))", class: .board)
    }

    /// Power-on (from off), a run reset, or nothing, whichever the board's wiring allows.
    private func start(retry: Bool) async throws {
        if let power = board.power {
            // A cold boot from a known state: off first, whatever the board was doing before.
            try await power.off()
            if retry {
                recorder.move(to: .off, reason: "power cycle: the board was not heard")
                try await clock.sleep(for: .milliseconds(500))
            } else {
                recorder.move(to: .off, reason: "power off before the run")
            }
            try await power.on()
            recorder.move(to: .booting, reason: "power on: \(power.description)")
        } else if let reset = board.reset, reset.kinds.contains(.run) {
            try await reset.reset(.run)
            recorder.move(to: .booting, reason: retry ? "run reset: the board was not heard" : "run reset")
        } else {
            recorder.move(to: .booting, reason: "no power switch or reset wiring: taken as it is")
        }
    }

    /// What the console said since `instant`, to tell a board that did not boot from one that was not heard.
    private func describeSilence(since instant: RigInstant) -> String {
        guard board.console != nil else { return "it has no console to say whether it booted" }
        guard let boot = console.latest, boot.started >= instant else {
            return "its console printed no BOOT line (is it powered, is the port right?)"
        }
        guard let ready = boot.ready else {
            return "its console shows boot \(String(boot.id, radix: 16)) (reset=\(boot.reset?.rawValue ?? "?")) but no READY"
        }
        return "its console says READY at \(ready) (boot \(String(boot.id, radix: 16))) but the radio did not hear it"
    }

    /// Leaves the board as the rig says: off (the default) or on. Errors are logged, not thrown: the run's
    /// results are already recorded.
    func finish(_ afterRun: AfterRun) async {
        guard afterRun == .off else { return }
        guard let power = board.power else {
            recorder.log(.info, "orchestrator", "left as it is: the board has no power switch")
            return
        }
        do {
            try await power.off()
            recorder.move(to: .off, reason: "run finished; after_run: off")
        } catch {
            recorder.log(.error, "orchestrator", "could not power the board off: \(error)")
        }
    }
}
