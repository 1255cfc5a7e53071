import BLECore

extension RunEvent {
    /// A check began on a board.
    public struct TestStarted: Codable, Sendable, Hashable {
        public var board: String
        /// The suite from the rig file's `suites:` list (`handshake`).
        public var suite: String
        /// The check within the suite (`ready`).
        public var test: String
        public var at: RigInstant

        public init(board: String, suite: String, test: String, at: RigInstant) {
            self.board = board
            self.suite = suite
            self.test = test
            self.at = at
        }

        private enum CodingKeys: String, CodingKey { case board, suite, test, at }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            board = try container.decode(String.self, forKey: .board)
            suite = try container.decode(String.self, forKey: .suite)
            test = try container.decode(String.self, forKey: .test)
            at = try container.decodeInstant(forKey: .at)
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(board, forKey: .board)
            try container.encode(suite, forKey: .suite)
            try container.encode(test, forKey: .test)
            try container.encode(rigTime: at, forKey: .at)
        }
    }

    /// A check ended. It repeats the start so that it stands alone when its ``TestStarted`` is missing.
    public struct TestFinished: Codable, Sendable, Hashable {
        public var board: String
        public var suite: String
        public var test: String
        public var started: RigInstant
        public var duration: Duration
        public var outcome: TestOutcome
        /// Every number the check measured, each with its definition.
        public var measurements: [MeasuredValue]

        public init(
            board: String, suite: String, test: String, started: RigInstant, duration: Duration,
            outcome: TestOutcome, measurements: [MeasuredValue] = []
        ) {
            self.board = board
            self.suite = suite
            self.test = test
            self.started = started
            self.duration = duration
            self.outcome = outcome
            self.measurements = measurements
        }

        private enum CodingKeys: String, CodingKey { case board, suite, test, started, duration, outcome, measurements }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            board = try container.decode(String.self, forKey: .board)
            suite = try container.decode(String.self, forKey: .suite)
            test = try container.decode(String.self, forKey: .test)
            started = try container.decodeInstant(forKey: .started)
            duration = try container.decodeDuration(forKey: .duration)
            outcome = try container.decode(TestOutcome.self, forKey: .outcome)
            measurements = try container.decodeIfPresent([MeasuredValue].self, forKey: .measurements) ?? []
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(board, forKey: .board)
            try container.encode(suite, forKey: .suite)
            try container.encode(test, forKey: .test)
            try container.encode(rigTime: started, forKey: .started)
            try container.encode(rigTime: duration, forKey: .duration)
            try container.encode(outcome, forKey: .outcome)
            try container.encode(measurements, forKey: .measurements)
        }
    }
}
