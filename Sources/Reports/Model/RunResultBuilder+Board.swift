import BLECore

extension RunResultBuilder {
    /// One board's part of the fold: its result so far without the timeline, the bounded timeline, the checks
    /// still running and the latest rig time seen.
    struct BoardFold: Sendable {
        /// Everything but ``BoardResult/timeline`` and the elision counts, which come from `timeline`.
        var board: BoardResult
        var timeline: TimelineBuffer
        /// Indices in `board.tests` of checks that started and have not finished, by suite and name.
        private var open: [TestKey: [Int]] = [:]
        private var lastSeen: RigInstant?

        private struct TestKey: Hashable, Sendable {
            var suite: String
            var name: String
        }

        init(id: String, timelineLimit: Int?) {
            board = BoardResult(id: id)
            timeline = TimelineBuffer(limit: timelineLimit)
        }

        /// Notes a rig time seen for this board; unfinished checks run to the latest.
        mutating func see(_ instant: RigInstant) {
            if let last = lastSeen, last >= instant { return }
            lastSeen = instant
        }

        mutating func start(_ started: RunEvent.TestStarted) {
            open[TestKey(suite: started.suite, name: started.test), default: []].append(board.tests.count)
            board.tests.append(
                TestResult(
                    board: started.board, suite: started.suite, name: started.test, started: started.at,
                    duration: .zero, outcome: .passed))
            see(started.at)
        }

        mutating func finish(_ end: RunEvent.TestFinished) {
            guard end.applies else { return setAside(end) }
            var result = TestResult(
                board: end.board, suite: end.suite, name: end.test, started: end.started, duration: end.duration,
                outcome: end.outcome, measurements: end.measurements, failureClass: end.failureClass,
                wallDuration: end.wallDuration, samples: end.samples)
            let key = TestKey(suite: end.suite, name: end.test)
            var slot: Int
            if let open = open[key]?.first {
                self.open[key]?.removeFirst()
                if self.open[key]?.isEmpty == true { self.open[key] = nil }
                board.tests[open] = result
                slot = open
            } else {
                slot = board.tests.count
                board.tests.append(result)
            }
            // A later attempt takes the place of the earlier one and keeps it in its history.
            if end.attempt > 1,
                let earlier = board.tests[..<slot].lastIndex(where: { $0.suite == end.suite && $0.name == end.test })
            {
                let previous = board.tests[earlier]
                result.earlierAttempts = previous.earlierAttempts + [previous.asAttempt]
                board.tests[earlier] = result
                board.tests.remove(at: slot)
                open = open.mapValues { $0.map { $0 > slot ? $0 - 1 : $0 } }
                slot = earlier
            }
            see(end.started.advanced(by: end.duration))
        }

        /// Records a check that does not apply to the board, removing the testcase its start opened.
        private mutating func setAside(_ end: RunEvent.TestFinished) {
            let key = TestKey(suite: end.suite, name: end.test)
            if let slot = open[key]?.first {
                open[key]?.removeFirst()
                if open[key]?.isEmpty == true { open[key] = nil }
                board.tests.remove(at: slot)
                open = open.mapValues { $0.map { $0 > slot ? $0 - 1 : $0 } }
            }
            let reason: String
            switch end.outcome {
            case .skipped(let why): reason = why
            default: reason = "does not apply to the board"
            }
            board.notApplicable.append(NotApplicableCheck(suite: end.suite, name: end.test, reason: reason))
            see(end.started)
        }

        /// The board's result: the kept timeline with its elision counts, and each check still open closed as
        /// interrupted (when the run was) or as an error.
        func result(interruption: String?) -> BoardResult {
            var result = board
            result.timeline = timeline.entries
            result.elidedTimelineEntries = timeline.elided
            result.elidedWarnings = timeline.elidedWarnings
            result.elisionIndex = timeline.elided > 0 ? timeline.elisionIndex : 0
            let last = lastSeen ?? .origin
            for slot in open.values.joined() {
                let test = result.tests[slot]
                result.tests[slot].duration = max(.zero, test.started.duration(to: last))
                if let interruption {
                    result.tests[slot].outcome = .interrupted(reason: interruption)
                    continue
                }
                let ending = result.finished == nil ? "the log ended" : "the board finished"
                let start = NumberText.rigTime(test.started)
                result.tests[slot].outcome = .error(
                    message: "the check started at \(start) and \(ending) before it reported a result",
                    details: "No testFinished event was recorded for this check; the run was interrupted or the "
                        + "orchestrator lost track of it. The board's log below shows how far it got.")
            }
            return result
        }
    }
}
