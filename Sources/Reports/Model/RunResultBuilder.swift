import BLECore

/// Folds a run's events into a ``RunResult`` one at a time, so a report can be rendered while the run goes on,
/// and, with a timeline limit, in memory that does not grow with the number of log lines.
///
/// ```swift
/// var builder = RunResultBuilder(timelineLimit: 10_000)
/// for event in events { builder.take(event) }
/// let junit = JUnitWriter().render(builder.result())
/// ```
///
/// The fold is total: any sequence of events gives a result.
/// - Boards appear in the plan's order (``RunEvent/RunStarted/plan``, the rig's), then those not planned in the
///   order of their first event of any kind; a board with no ``RunEvent/boardStarted(_:)`` has no profile and no
///   identity.
/// - A ``RunEvent/testFinished(_:)`` completes the earliest unfinished ``RunEvent/testStarted(_:)`` of the same
///   board, suite and check, and takes its place; without one it is added where it appears. A check may run
///   more than once; each run is its own ``TestResult``, except a retry (``RunEvent/TestFinished/attempt`` above
///   1), which replaces the check's latest result and keeps it in ``TestResult/earlierAttempts``.
/// - A check that started and never finished runs to the last rig time seen for its board. When the run
///   finished with an ``RunEvent/RunFinished/interruption``, the check was in flight when the run was stopped
///   and becomes ``TestOutcome/interrupted(reason:)`` with that reason; otherwise it becomes an error that
///   says it never reported a result. (``result()`` says so for checks still running at the time it is called.)
/// - Of several ``RunEvent/runStarted(_:)`` the first counts; of several ``RunEvent/runFinished(_:)`` the last,
///   and likewise the last ``RunEvent/boardFinished(_:)`` of a board gives its finish, state and numbers.
/// - A check that does not apply to its board (``RunEvent/TestFinished/applies`` false) is no testcase: it goes
///   to ``BoardResult/notApplicable``, and the testcase its ``RunEvent/testStarted(_:)`` opened is removed.
/// - With a plan (``RunEvent/RunStarted/plan``), every planned check the log has no result for becomes a skip
///   that says why it was not run (see ``RunResult/fillIn(_:)``), after the board's other checks; a planned board
///   with no event of its own takes its place in the plan's order too.
/// - With a `timelineLimit` `L`, each board keeps the first `L / 4` of its log lines and state transitions and
///   the last `L - L / 4`; ``BoardResult/elidedTimelineEntries`` counts the rest (see ``BoardResult``). Checks,
///   their numbers and attachments are always kept.
public struct RunResultBuilder: Sendable {
    /// The most timeline entries kept per board; nil keeps them all.
    public let timelineLimit: Int?
    private var run: RunEvent.RunStarted?
    private var finished: RunEvent.RunFinished?
    private var boards: [BoardFold] = []
    private var boardIndex: [String: Int] = [:]

    /// A builder with no events yet. `timelineLimit` nil keeps every log line and transition (what
    /// `RunResult(events)` does); a limit below zero is taken as zero.
    public init(timelineLimit: Int? = nil) {
        self.timelineLimit = timelineLimit
    }

    /// Folds in the next event of the run.
    public mutating func take(_ event: RunEvent) {
        switch event {
        case .runStarted(let started):
            if run == nil { run = started }
        case .runFinished(let end):
            finished = end
        case .boardStarted(let started):
            let index = boardIndex(started.board)
            boards[index].board.profile = started.profile
            boards[index].board.identity = started.identity
            boards[index].board.started = started.at
            boards[index].see(started.at)
        case .boardFinished(let end):
            let index = boardIndex(end.board)
            boards[index].board.finished = end.at
            boards[index].board.finalState = end.state
            boards[index].board.measurements = end.measurements
            boards[index].see(end.at)
        case .log(let line):
            let index = boardIndex(line.board)
            boards[index].timeline.append(.log(line))
            boards[index].see(line.at)
        case .transition(let transition):
            let index = boardIndex(transition.board)
            boards[index].timeline.append(.transition(transition))
            boards[index].see(transition.at)
        case .attachment(let attachment):
            let index = boardIndex(attachment.board)
            boards[index].board.attachments.append(attachment)
            boards[index].see(attachment.at)
        case .testStarted(let started):
            boards[boardIndex(started.board)].start(started)
        case .testFinished(let end):
            boards[boardIndex(end.board)].finish(end)
        }
    }

    /// The run as folded so far. Checks that have started and not finished are shown as the rules above say
    /// for a log that ends here; the builder itself is unchanged and can take more events.
    public func result() -> RunResult {
        let interruption = finished?.interruption
        // Each board folded on its own, side by side: a thousand boards' timelines are sorted at the run's end.
        var result = RunResult(
            run: run, finished: finished, boards: boards.concurrentMap { $0.result(interruption: interruption) })
        if let plan = run?.plan, !plan.isEmpty { result.fillIn(plan) }
        return result
    }

    /// The position of `board` in `boards`, adding it on its first event.
    private mutating func boardIndex(_ board: String) -> Int {
        if let known = boardIndex[board] { return known }
        let index = boards.count
        boardIndex[board] = index
        boards.append(BoardFold(id: board, timelineLimit: timelineLimit))
        return index
    }
}
