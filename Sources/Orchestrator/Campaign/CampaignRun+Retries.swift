import BLECore
import BenchCore
import Reports

extension CampaignRun {
    /// Tries `planned` again on the board while its last attempt ended with a failure the rig's ``RetryPolicy``
    /// allows another attempt for: infrastructure and board failures within `retries:`, test failures within
    /// `rerun_failed:`. A board failure is followed by recovery (``BoardStrategy/recover(scanningWith:why:)``)
    /// before the next attempt. Returns why the board must be quarantined, or nil to go on with the next suite:
    /// a board whose board failures outlast its retries, or that cannot be recovered, is taken out of the run.
    func retry(
        _ planned: PlannedSuite, on target: BoardUnderTest, strategy: BoardStrategy, central: any Central,
        health: BenchHealth
    ) async -> String? {
        let recorder = target.recorder
        var budget = rig.retries
        while !Task.isCancelled, control.reason == nil {
            let ended = recorder.endedChecks(of: planned.name)
            let classes = Set(ended.compactMap(\.failureClass))
            guard !classes.isEmpty else { return nil }
            // A part of the bench that failed stays failed: trying again measures nothing.
            if health.fault(affecting: strategy.board.id) != nil { return nil }
            let worst = ended.first { $0.failureClass == .board } ?? ended.first { $0.failureClass != nil }
            let reason = worst.map { "\($0.failureClass?.phrase ?? "failure") in \(planned.name).\($0.name)" } ?? ""
            if classes.contains(.board) {
                // The board misbehaved: bring it back first, whether or not another attempt is allowed.
                do {
                    let step = try await strategy.recover(scanningWith: central, why: reason)
                    recorder.log(.info, "orchestrator", "recovered by \(step.rawValue) after \(reason)")
                } catch {
                    return "\(reason), and recovery failed: \(error)"
                }
                guard budget.board > 0 else {
                    let tries = rig.retries.board
                    return tries > 0 ? "\(reason) again after \(tries) \(tries == 1 ? "retry" : "retries")" : nil
                }
                budget.board -= 1
            } else if classes.contains(.infrastructure) {
                guard budget.infrastructure > 0 else { return nil }
                budget.infrastructure -= 1
            } else {
                guard budget.rerunFailed > 0 else { return nil }
                budget.rerunFailed -= 1
            }
            let attempt = recorder.beginNextAttempt(of: planned.name)
            recorder.log(.info, "orchestrator", "attempt \(attempt) of suite \(planned.name) after \(reason)")
            await planned.suite.run(on: target)
        }
        return nil
    }
}
