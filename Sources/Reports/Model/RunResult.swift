import BLECore

/// A run folded from its event log: the run's identity and one ``BoardResult`` per board, in the order boards
/// first appear in the log. Every report (JUnit, text summary, HTML) renders this model. ``RunResultBuilder``
/// documents how events map onto it; `RunResult(_ events:)` folds a whole log at once.
public struct RunResult: Sendable, Hashable {
    /// The run's first ``RunEvent/runStarted(_:)``; nil when the log has none (a log cut at the front).
    public var run: RunEvent.RunStarted?
    /// The run's ``RunEvent/runFinished(_:)``; nil when the log ended without one (the orchestrator died before it
    /// could record the end). A run stopped on purpose has one, with ``RunEvent/RunFinished/interruption`` set.
    public var finished: RunEvent.RunFinished?
    public var boards: [BoardResult]

    public init(run: RunEvent.RunStarted?, finished: RunEvent.RunFinished?, boards: [BoardResult]) {
        self.run = run
        self.finished = finished
        self.boards = boards
    }

    /// Why the run stopped early (`SIGINT received`, `--timeout 30 s reached`); nil for a run that ran to its
    /// end, and for a log without a ``RunEvent/runFinished(_:)``.
    public var interruption: String? { finished?.interruption }

    /// The counts over every board.
    public var counts: TestCounts { boards.reduce(TestCounts()) { $0 + $1.counts } }
}

/// What happened on one board during a run.
public struct BoardResult: Sendable, Hashable {
    /// The board id from the rig file.
    public var id: String
    /// The device profile, from ``RunEvent/boardStarted(_:)``; nil when the board never started.
    public var profile: String?
    public var identity: [IdentityField]
    public var started: RigInstant?
    public var finished: RigInstant?
    /// The board's final state from its ``RunEvent/boardFinished(_:)`` (`off`, `quarantined`); nil when none
    /// said.
    public var finalState: String?
    /// Numbers about the board's run that are not any check's (`schedule.link_wait_ms`), from its
    /// ``RunEvent/boardFinished(_:)``.
    public var measurements: [MeasuredValue]
    /// The board's checks in the order they started.
    public var tests: [TestResult]
    /// Log lines and state transitions in time order; those at the same instant in the order they were emitted (the
    /// run log keeps the order of emission). Folded with a timeline limit
    /// (``RunResultBuilder/init(timelineLimit:)``), only the kept ones: the first entries up to ``elisionIndex``,
    /// then, after ``elidedTimelineEntries`` left out, the last ones.
    public var timeline: [TimelineEntry]
    /// How many timeline entries the fold left out between the first and the last ones it kept; 0 when it kept
    /// them all. The run log still has them.
    public var elidedTimelineEntries: Int
    /// Of ``elidedTimelineEntries``, the log lines at `warning` or above.
    public var elidedWarnings: Int
    /// Where in ``timeline`` the left-out entries were: `timeline[..<elisionIndex]` came before them, the rest
    /// after. 0 when nothing was left out.
    public var elisionIndex: Int
    public var attachments: [RunEvent.Attachment]
    /// Checks that do not apply to the board (``RunEvent/TestFinished/applies`` false), with why: kept out of
    /// ``tests`` and so out of every report's testcases and counts.
    public var notApplicable: [NotApplicableCheck] = []

    public init(
        id: String, profile: String? = nil, identity: [IdentityField] = [], started: RigInstant? = nil,
        finished: RigInstant? = nil, finalState: String? = nil, measurements: [MeasuredValue] = [],
        tests: [TestResult] = [], timeline: [TimelineEntry] = [], elidedTimelineEntries: Int = 0,
        elidedWarnings: Int = 0, elisionIndex: Int = 0, attachments: [RunEvent.Attachment] = []
    ) {
        self.id = id
        self.profile = profile
        self.identity = identity
        self.started = started
        self.finished = finished
        self.finalState = finalState
        self.measurements = measurements
        self.tests = tests
        self.timeline = timeline
        self.elidedTimelineEntries = elidedTimelineEntries
        self.elidedWarnings = elidedWarnings
        self.elisionIndex = elisionIndex
        self.attachments = attachments
    }

    public var counts: TestCounts { tests.reduce(TestCounts()) { $0 + TestCounts($1.outcome) } }

    /// The kept log lines of ``timeline``.
    public var logs: [RunEvent.LogLine] {
        timeline.compactMap { if case .log(let line) = $0 { line } else { nil } }
    }

    /// The kept state transitions of ``timeline``.
    public var transitions: [RunEvent.StateTransition] {
        timeline.compactMap { if case .transition(let transition) = $0 { transition } else { nil } }
    }

    /// Rig time from the board's start to its finish; without both, the sum of its checks' durations.
    public var elapsed: Duration {
        if let started, let finished { return started.duration(to: finished) }
        return tests.reduce(.zero) { $0 + $1.duration }
    }
}

/// A check that does not apply to a board, and why (`pairing is the esp-point's; this is hrm`).
public struct NotApplicableCheck: Sendable, Hashable {
    public var suite: String
    public var name: String
    public var reason: String

    public init(suite: String, name: String, reason: String) {
        self.suite = suite
        self.name = name
        self.reason = reason
    }
}

/// One check on one board.
public struct TestResult: Sendable, Hashable {
    public var board: String
    public var suite: String
    public var name: String
    public var started: RigInstant
    public var duration: Duration
    public var outcome: TestOutcome
    public var measurements: [MeasuredValue]
    /// Whose fault a non-pass is (``RunEvent/TestFinished/failureClass``).
    public var failureClass: FailureClass?
    /// Wall-clock time the check took; nil in logs from before it was recorded.
    public var wallDuration: Duration?
    /// The raw samples behind ``measurements``.
    public var samples: [MetricSamples]
    /// This check's earlier attempts in this run, first first, when it was retried or rerun; this result is the
    /// last attempt.
    public var earlierAttempts: [Attempt]

    /// One earlier attempt of a retried check.
    public struct Attempt: Sendable, Hashable {
        public var started: RigInstant
        public var duration: Duration
        public var wallDuration: Duration?
        public var outcome: TestOutcome
        public var failureClass: FailureClass?

        public init(
            started: RigInstant, duration: Duration, wallDuration: Duration?, outcome: TestOutcome,
            failureClass: FailureClass?
        ) {
            self.started = started
            self.duration = duration
            self.wallDuration = wallDuration
            self.outcome = outcome
            self.failureClass = failureClass
        }
    }

    public init(
        board: String, suite: String, name: String, started: RigInstant, duration: Duration, outcome: TestOutcome,
        measurements: [MeasuredValue] = [], failureClass: FailureClass? = nil, wallDuration: Duration? = nil,
        samples: [MetricSamples] = [], earlierAttempts: [Attempt] = []
    ) {
        self.board = board
        self.suite = suite
        self.name = name
        self.started = started
        self.duration = duration
        self.outcome = outcome
        self.measurements = measurements
        self.failureClass = failureClass
        self.wallDuration = wallDuration
        self.samples = samples
        self.earlierAttempts = earlierAttempts
    }

    /// Which attempt the result is, from 1.
    public var attempt: Int { earlierAttempts.count + 1 }

    /// Passed on its last attempt after not passing on an earlier one.
    public var isFlaky: Bool {
        outcome == .passed && earlierAttempts.contains { $0.outcome != .passed }
    }

    /// This result as an earlier attempt of a later one.
    var asAttempt: Attempt {
        Attempt(
            started: started, duration: duration, wallDuration: wallDuration, outcome: outcome,
            failureClass: failureClass)
    }
}

/// An entry of a board's timeline.
public enum TimelineEntry: Sendable, Hashable {
    case log(RunEvent.LogLine)
    case transition(RunEvent.StateTransition)

    public var at: RigInstant {
        switch self {
        case .log(let line): line.at
        case .transition(let transition): transition.at
        }
    }
}

/// How many checks ended which way.
///
/// An interrupted check (``TestOutcome/interrupted(reason:)``) is an error: it is counted in ``errors``, as
/// JUnit's `errors` attributes need it, and once more in ``interrupted``, which is the part of ``errors`` that
/// was interrupted (so `interrupted <= errors`). ``tests`` is still `passed + failed + errors + skipped`, and a
/// consumer that only knows ``errors`` (a gate that fails on any error) treats an interrupted run as not passed.
public struct TestCounts: Sendable, Hashable {
    public var passed = 0
    public var failed = 0
    /// Checks that ended in error, interrupted ones included.
    public var errors = 0
    public var skipped = 0
    /// Of ``errors``, the checks that were interrupted.
    public var interrupted = 0

    public init(passed: Int = 0, failed: Int = 0, errors: Int = 0, skipped: Int = 0, interrupted: Int = 0) {
        self.passed = passed
        self.failed = failed
        self.errors = errors
        self.skipped = skipped
        self.interrupted = interrupted
    }

    init(_ outcome: TestOutcome) {
        switch outcome {
        case .passed: passed = 1
        case .failed: failed = 1
        case .error: errors = 1
        case .interrupted:
            errors = 1
            interrupted = 1
        case .skipped: skipped = 1
        }
    }

    public var tests: Int { passed + failed + errors + skipped }

    public static func + (a: Self, b: Self) -> Self {
        Self(
            passed: a.passed + b.passed, failed: a.failed + b.failed, errors: a.errors + b.errors,
            skipped: a.skipped + b.skipped, interrupted: a.interrupted + b.interrupted)
    }
}
