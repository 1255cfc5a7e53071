import Foundation

/// What the reports show beside the run itself: the gates' verdicts, the baseline's numbers and the trends over
/// earlier runs. The gates and history parts of blerig fill it in; a run without them renders with what it has.
public struct ReportInputs: Sendable, Hashable {
    public var gates: [GateVerdict]
    public var baseline: Baseline?
    public var trends: [MetricTrend]

    public init(gates: [GateVerdict] = [], baseline: Baseline? = nil, trends: [MetricTrend] = []) {
        self.gates = gates
        self.baseline = baseline
        self.trends = trends
    }
}

/// A baseline run's numbers by board, metric and statistic: what `summary.md` compares the run against.
public struct Baseline: Sendable, Hashable {
    /// The baseline's name (`main`, `release-1.4`) or the run id it was set from.
    public var name: String
    /// The run the numbers come from, when known.
    public var runID: String?
    public var values: [Key: Double]

    public struct Key: Sendable, Hashable, Comparable {
        public var board: String
        public var metric: String
        public var statistic: Statistic

        public init(board: String, metric: String, statistic: Statistic) {
            self.board = board
            self.metric = metric
            self.statistic = statistic
        }

        public static func < (a: Key, b: Key) -> Bool {
            (a.board, a.metric, a.statistic.rawValue) < (b.board, b.metric, b.statistic.rawValue)
        }
    }

    public init(name: String, runID: String? = nil, values: [Key: Double]) {
        self.name = name
        self.runID = runID
        self.values = values
    }
}

/// One metric's values over earlier runs, oldest first, for the trend charts of `report.html`.
public struct MetricTrend: Sendable, Hashable {
    /// The board; nil for a number about the whole rig.
    public var board: String?
    public var metric: String
    public var statistic: Statistic
    public var unit: MetricUnit
    public var points: [Point]
    /// The run whose value is the baseline, marked on the chart; nil when there is none.
    public var baselineRunID: String?

    public struct Point: Sendable, Hashable {
        public var runID: String
        public var date: Date
        public var value: Double

        public init(runID: String, date: Date, value: Double) {
            self.runID = runID
            self.date = date
            self.value = value
        }
    }

    public init(
        board: String?, metric: String, statistic: Statistic, unit: MetricUnit, points: [Point],
        baselineRunID: String? = nil
    ) {
        self.board = board
        self.metric = metric
        self.statistic = statistic
        self.unit = unit
        self.points = points
        self.baselineRunID = baselineRunID
    }
}
