import Reports

/// Where a regression gate finds the baseline's raw samples: a stored run directory (``RunBaseline``), or the
/// history database, which implements this protocol in its own target so the evaluator does not depend on it.
public protocol BaselineSource: Sendable {
    /// What the baseline is, for messages: `run 20261126T014000-virtual-a1b2 (reports/…)`, `baseline 'v1.2'`.
    var name: String { get }
    /// The baseline run's boards, with their profiles where known.
    func boards() async throws -> [BaselineBoard]
    /// The raw samples of `metric` on `board` in the baseline, in the order taken; nil when it has none.
    func samples(board: String, metric: String) async throws -> MetricSamples?
}

/// A board of a baseline run.
public struct BaselineBoard: Sendable, Hashable {
    public var id: String
    public var profile: String?

    public init(id: String, profile: String?) {
        self.id = id
        self.profile = profile
    }
}

/// A baseline held in memory: a folded run, such as a run directory's `run.jsonl`.
public struct RunBaseline: BaselineSource {
    public let name: String
    public let run: GateRun

    public init(name: String, run: GateRun) {
        self.name = name
        self.run = run
    }

    public func boards() async throws -> [BaselineBoard] {
        run.boards.map { BaselineBoard(id: $0.id, profile: $0.profile) }
    }

    public func samples(board: String, metric: String) async throws -> MetricSamples? {
        run.board(board)?.samples[metric]
    }
}
