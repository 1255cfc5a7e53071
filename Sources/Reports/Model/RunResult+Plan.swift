import BLECore

extension RunResult {
    /// Adds every check of `plan` that has no result and does not apply to its board as a skip saying why it
    /// was not run, so a run stopped early, a bench that never opened and a quarantined board still report the
    /// whole plan: the same testcases as a run that went to its end.
    ///
    /// The reason, first that holds: the bench failed (`not run: the bench failed: <why>`), the run was stopped
    /// (`not run: the run was stopped (<why>)`), the board finished quarantined (`not run: the board was
    /// quarantined`), else `not run: the run log has no result for it`.
    ///
    /// The planned boards then come first, in the plan's order (the rig's), and the others after them in the order
    /// they had: the boards of airs simulated side by side report in the same order however their events
    /// interleaved.
    public mutating func fillIn(_ plan: [PlannedBoard]) {
        var index: [String: Int] = [:]
        for (position, board) in boards.enumerated() { index[board.id] = position }
        for planned in plan {
            let position: Int
            if let known = index[planned.board] {
                position = known
            } else {
                position = boards.count
                index[planned.board] = position
                boards.append(BoardResult(id: planned.board, profile: planned.profile))
            }
            var board = boards[position]
            var seen = Set(board.tests.map { PlannedCheck(suite: $0.suite, test: $0.name) })
            seen.formUnion(board.notApplicable.map { PlannedCheck(suite: $0.suite, test: $0.name) })
            let reason = notRunReason(board)
            let at = board.finished ?? board.started ?? finished?.at ?? .origin
            for check in planned.checks where !seen.contains(check) {
                seen.insert(check)
                board.tests.append(
                    TestResult(
                        board: planned.board, suite: check.suite, name: check.test, started: at, duration: .zero,
                        outcome: .skipped(reason: reason), wallDuration: .zero))
            }
            if board.profile == nil { board.profile = planned.profile }
            boards[position] = board
        }
        var rank: [String: Int] = [:]
        for (position, planned) in plan.enumerated() where rank[planned.board] == nil { rank[planned.board] = position }
        let ordered = boards.enumerated().sorted { left, right in
            (rank[left.element.id] ?? plan.count, left.offset) < (rank[right.element.id] ?? plan.count, right.offset)
        }
        boards = ordered.map(\.element)
    }

    private func notRunReason(_ board: BoardResult) -> String {
        if let interruption, finished?.interruptionClass == .infrastructure {
            return "not run: the bench failed: \(interruption)"
        }
        if let interruption { return "not run: the run was stopped (\(interruption))" }
        if board.finalState == "quarantined" { return "not run: the board was quarantined" }
        return "not run: the run log has no result for it"
    }
}
