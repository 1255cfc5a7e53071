import Reports

/// A run as gates read it: each board with its profile, every number it measured, and the raw samples behind
/// them, metric by metric.
public struct GateRun: Sendable {
    public struct Board: Sendable {
        public var id: String
        public var profile: String?
        /// The board's own numbers and every check's, in the order measured.
        public var measurements: [MeasuredValue]
        /// Every check's raw samples of each metric, concatenated in the order the checks ran.
        public var samples: [String: MetricSamples]

        public init(
            id: String, profile: String?, measurements: [MeasuredValue] = [], samples: [String: MetricSamples] = [:]
        ) {
            self.id = id
            self.profile = profile
            self.measurements = measurements
            self.samples = samples
        }

        /// The values of `metric`'s `statistic`, one per check that measured it.
        public func values(_ metric: String, _ statistic: Statistic) -> [MeasuredValue] {
            measurements.filter { $0.metric == metric && $0.statistic == statistic }
        }
    }

    public var boards: [Board]

    public init(boards: [Board]) { self.boards = boards }

    /// The boards of a folded run. A check's samples count whatever its outcome, as the check recorded them
    /// (``TestResult/samples``: a failed check keeps its samples only when it reported numbers).
    public init(_ result: RunResult) {
        boards = result.boards.map { board in
            var samples: [String: MetricSamples] = [:]
            for test in board.tests {
                for set in test.samples {
                    if samples[set.metric] == nil {
                        samples[set.metric] = set
                    } else if samples[set.metric]?.unit == set.unit {
                        samples[set.metric]?.values += set.values
                    }
                }
            }
            return Board(
                id: board.id, profile: board.profile,
                measurements: board.tests.flatMap(\.measurements) + board.measurements, samples: samples)
        }
    }

    public func board(_ id: String) -> Board? { boards.first { $0.id == id } }
}
