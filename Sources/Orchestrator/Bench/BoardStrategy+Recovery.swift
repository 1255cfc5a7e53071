import BLECore
import BenchCore
import Reports

extension BoardStrategy {
    /// One rung of the recovery ladder, gentlest first.
    enum RecoveryStep: String, Sendable, CaseIterable {
        /// `reboot` typed on the board's console: the firmware restarts itself.
        case softReboot = "soft reboot"
        /// The run reset line (EN on an ESP32).
        case resetLine = "reset line"
        /// Hub port power off and on.
        case powerCycle = "power cycle"
    }

    /// The rungs the board's wiring allows, gentlest first.
    var recoverySteps: [RecoveryStep] {
        var steps: [RecoveryStep] = []
        if board.console != nil { steps.append(.softReboot) }
        if let reset = board.reset, reset.kinds.contains(.run) { steps.append(.resetLine) }
        if board.power != nil { steps.append(.powerCycle) }
        return steps
    }

    /// Brings a board that failed back to advertising by escalation (soft reboot → reset line → power cycle),
    /// recording each step with what the console showed. Returns the step that worked; throws a
    /// ``CheckFailure`` saying what each step did when none did (the caller quarantines the board).
    func recover(scanningWith central: any Central, why: String) async throws -> RecoveryStep {
        var tried: [String] = []
        for step in recoverySteps {
            try Task.checkCancellation()
            let at = clock.now
            do {
                try await perform(step, why: why)
            } catch {
                tried.append("\(step.rawValue) failed: \(error)")
                recorder.log(.warning, "orchestrator", "recovery: \(step.rawValue) failed: \(error)")
                continue
            }
            let heard = try await Preflight.firstAdvertisement(
                of: board.match, on: central, clock: clock, within: reachTimeout)
            let console = consoleSince(at)
            if let heard {
                recorder.move(
                    to: .advertising,
                    reason: "recovered by \(step.rawValue): advertising after \(at.duration(to: heard.received).msText)"
                        + console)
                return step
            }
            tried.append("\(step.rawValue): not heard within \(reachTimeout.seconds) s\(console)")
            recorder.log(.warning, "orchestrator", "recovery: \(tried.last!)")
        }
        throw CheckFailure(
            "\(place): board \(board.id) could not be recovered after \(why)"
                + (tried.isEmpty ? ": it has no console, reset line or power switch" : ": \(tried.joined(separator: "; "))"),
            class: .board)
    }

    private func perform(_ step: RecoveryStep, why: String) async throws {
        switch step {
        case .softReboot:
            try await board.console?.send("reboot")
            recorder.move(to: .booting, reason: "soft reboot (console 'reboot') after \(why)")
        case .resetLine:
            try await board.reset?.reset(.run)
            recorder.move(to: .booting, reason: "run reset after \(why)")
        case .powerCycle:
            guard let power = board.power else { return }
            try await power.off()
            recorder.move(to: .off, reason: "power cycle after \(why)")
            try await clock.sleep(for: .milliseconds(500))
            try await power.on()
            recorder.move(to: .booting, reason: "power on: \(power.description)")
        }
    }

    /// `; console: boot 3 (reset=sw), READY` — what the console showed since `instant`, for the record.
    private func consoleSince(_ instant: RigInstant) -> String {
        guard board.console != nil else { return "" }
        guard let boot = console.latest, boot.started >= instant else { return "; console: no BOOT line" }
        return "; console: boot \(String(boot.id, radix: 16)) (reset=\(boot.reset?.rawValue ?? "?"))"
            + (boot.ready != nil ? ", READY" : ", no READY")
    }
}
