import BLECore

extension RunResult {
    /// Folds a run's events into the result model. The fold is total: any sequence of events gives a result.
    ///
    /// - Boards appear in the order of their first event of any kind; a board with no
    ///   ``RunEvent/boardStarted(_:)`` has no profile and no identity.
    /// - A ``RunEvent/testFinished(_:)`` completes the earliest unfinished ``RunEvent/testStarted(_:)`` of the same
    ///   board, suite and check, and takes its place; without one it is added where it appears. A check may run
    ///   more than once; each run is its own ``TestResult``.
    /// - A check that started and never finished runs to the last rig time seen for its board. When the run
    ///   finished with an ``RunEvent/RunFinished/interruption``, the check was in flight when the run was stopped
    ///   and becomes ``TestOutcome/interrupted(reason:)`` with that reason; otherwise it becomes an error that
    ///   says it never reported a result.
    /// - Of several ``RunEvent/runStarted(_:)`` the first counts; of several ``RunEvent/runFinished(_:)`` the last,
    ///   and likewise the last ``RunEvent/boardFinished(_:)`` of a board gives its finish, state and numbers.
    public init(_ events: some Sequence<RunEvent>) {
        var fold = Fold()
        for event in events { fold.take(event) }
        self = fold.result()
    }

    public init(_ log: RunLog) {
        self.init(log.events)
    }
}

private struct Fold {
    private var run: RunEvent.RunStarted?
    private var finished: RunEvent.RunFinished?
    private var boards: [BoardResult] = []
    private var boardIndex: [String: Int] = [:]
    /// Per board: the indices in `tests` of checks that started and have not finished, by suite and name.
    private var open: [String: [TestKey: [Int]]] = [:]
    private var lastSeen: [String: RigInstant] = [:]

    private struct TestKey: Hashable {
        var suite: String
        var name: String
    }

    mutating func take(_ event: RunEvent) {
        switch event {
        case .runStarted(let started):
            if run == nil { run = started }
        case .runFinished(let end):
            finished = end
        case .boardStarted(let started):
            update(started.board, seen: started.at) {
                $0.profile = started.profile
                $0.identity = started.identity
                $0.started = started.at
            }
        case .boardFinished(let end):
            update(end.board, seen: end.at) {
                $0.finished = end.at
                $0.finalState = end.state
                $0.measurements = end.measurements
            }
        case .log(let line):
            update(line.board, seen: line.at) { $0.timeline.append(.log(line)) }
        case .transition(let transition):
            update(transition.board, seen: transition.at) { $0.timeline.append(.transition(transition)) }
        case .attachment(let attachment):
            update(attachment.board, seen: attachment.at) { $0.attachments.append(attachment) }
        case .testStarted(let started):
            startTest(started)
        case .testFinished(let end):
            finishTest(end)
        }
    }

    private mutating func startTest(_ started: RunEvent.TestStarted) {
        let key = TestKey(suite: started.suite, name: started.test)
        let pending = TestResult(
            board: started.board, suite: started.suite, name: started.test, started: started.at, duration: .zero,
            outcome: .passed)
        var index = 0
        update(started.board, seen: started.at) {
            index = $0.tests.count
            $0.tests.append(pending)
        }
        open[started.board, default: [:]][key, default: []].append(index)
    }

    private mutating func finishTest(_ end: RunEvent.TestFinished) {
        let key = TestKey(suite: end.suite, name: end.test)
        let result = TestResult(
            board: end.board, suite: end.suite, name: end.test, started: end.started, duration: end.duration,
            outcome: end.outcome, measurements: end.measurements)
        let slot = open[end.board]?[key]?.first
        if slot != nil { open[end.board]?[key]?.removeFirst() }
        update(end.board, seen: end.started.advanced(by: end.duration)) {
            if let slot { $0.tests[slot] = result } else { $0.tests.append(result) }
        }
    }

    private mutating func update(_ board: String, seen instant: RigInstant, _ change: (inout BoardResult) -> Void) {
        let index: Int
        if let known = boardIndex[board] {
            index = known
        } else {
            index = boards.count
            boardIndex[board] = index
            boards.append(BoardResult(id: board))
        }
        change(&boards[index])
        if let last = lastSeen[board], last >= instant { return }
        lastSeen[board] = instant
    }

    func result() -> RunResult {
        var boards = self.boards
        for (board, byKey) in open {
            guard let index = boardIndex[board] else { continue }
            let last = lastSeen[board] ?? .origin
            for slot in byKey.values.joined() {
                let test = boards[index].tests[slot]
                boards[index].tests[slot].duration = max(.zero, test.started.duration(to: last))
                if let interruption = finished?.interruption {
                    boards[index].tests[slot].outcome = .interrupted(reason: interruption)
                    continue
                }
                let ending = boards[index].finished == nil ? "the log ended" : "the board finished"
                let start = NumberText.rigTime(test.started)
                boards[index].tests[slot].outcome = .error(
                    message: "the check started at \(start) and \(ending) before it reported a result",
                    details: "No testFinished event was recorded for this check; the run was interrupted or the "
                        + "orchestrator lost track of it. The board's log below shows how far it got.")
            }
        }
        return RunResult(run: run, finished: finished, boards: boards)
    }
}
