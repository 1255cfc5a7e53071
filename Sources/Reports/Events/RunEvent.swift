/// What the orchestrator emits while a run goes on. Reports are functions of the recorded sequence of these
/// (a ``RunLog``): JUnit, summaries and the performance report read the log, never the live run, so a run can
/// be re-rendered later from its JSON Lines file.
///
/// Times come from two clocks. The run's start is a wall-clock `Date`; everything that happens on the rig is a
/// ``BLECore/RigInstant`` on the rig clock (virtual time in the farm, monotonic time on hardware).
public enum RunEvent: Sendable, Hashable {
    /// The run began: which rig, seed and radio, when and where.
    case runStarted(RunStarted)
    /// A board was leased and is being brought to a known state; carries its identity.
    case boardStarted(BoardStarted)
    /// A check began on a board.
    case testStarted(TestStarted)
    /// A check ended, with its outcome and the numbers it measured.
    case testFinished(TestFinished)
    /// A line from a board's console, the central stack or the orchestrator about a board.
    case log(LogLine)
    /// A board moved between strategy states (off → booting → ready ...).
    case transition(StateTransition)
    /// A file about a board was written into the report directory (a btsnoop capture, a console log).
    case attachment(Attachment)
    /// The orchestrator is done with a board.
    case boardFinished(BoardFinished)
    /// The run ended.
    case runFinished(RunFinished)

    /// The board the event is about; nil for run-level events.
    public var board: String? {
        switch self {
        case .runStarted, .runFinished: nil
        case .boardStarted(let event): event.board
        case .testStarted(let event): event.board
        case .testFinished(let event): event.board
        case .log(let event): event.board
        case .transition(let event): event.board
        case .attachment(let event): event.board
        case .boardFinished(let event): event.board
        }
    }

    /// The event's name in the log's `event` field.
    public var name: String { Kind(self).rawValue }

    enum Kind: String, CaseIterable {
        case runStarted, boardStarted, testStarted, testFinished, log, transition, attachment, boardFinished
        case runFinished

        init(_ event: RunEvent) {
            self =
                switch event {
                case .runStarted: .runStarted
                case .boardStarted: .boardStarted
                case .testStarted: .testStarted
                case .testFinished: .testFinished
                case .log: .log
                case .transition: .transition
                case .attachment: .attachment
                case .boardFinished: .boardFinished
                case .runFinished: .runFinished
                }
        }
    }
}
