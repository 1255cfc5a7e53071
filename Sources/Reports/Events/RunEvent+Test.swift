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
        /// Whose fault a non-pass is; nil for a pass, a skip, and a check interrupted by a signal or the timeout.
        public var failureClass: FailureClass?
        /// How long the check took on the wall clock (on the virtual farm far less than ``duration``); nil in
        /// logs from before it was recorded.
        public var wallDuration: Duration?
        /// Which run of the check this is, from 1: a retried or rerun check finishes once per attempt.
        public var attempt: Int
        /// The raw samples behind ``measurements``, for statistics across runs.
        public var samples: [MetricSamples]
        /// False for a check that does not apply to the board (a pairing check on a board without pairing, a check
        /// that needs a console the rig does not give the board): the outcome is a skip with the reason, and
        /// reports leave it out, so every run of a rig has the same testcases. Written only when false.
        public var applies: Bool

        public init(
            board: String, suite: String, test: String, started: RigInstant, duration: Duration,
            outcome: TestOutcome, measurements: [MeasuredValue] = [], failureClass: FailureClass? = nil,
            wallDuration: Duration? = nil, attempt: Int = 1, samples: [MetricSamples] = [], applies: Bool = true
        ) {
            self.board = board
            self.suite = suite
            self.test = test
            self.started = started
            self.duration = duration
            self.outcome = outcome
            self.measurements = measurements
            self.failureClass = failureClass
            self.wallDuration = wallDuration
            self.attempt = attempt
            self.samples = samples
            self.applies = applies
        }

        private enum CodingKeys: String, CodingKey {
            case board, suite, test, started, duration, outcome, measurements, failureClass, wallDuration, attempt
            case samples, applies
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            board = try container.decode(String.self, forKey: .board)
            suite = try container.decode(String.self, forKey: .suite)
            test = try container.decode(String.self, forKey: .test)
            started = try container.decodeInstant(forKey: .started)
            duration = try container.decodeDuration(forKey: .duration)
            outcome = try container.decode(TestOutcome.self, forKey: .outcome)
            measurements = try container.decodeIfPresent([MeasuredValue].self, forKey: .measurements) ?? []
            failureClass = try container.decodeIfPresent(FailureClass.self, forKey: .failureClass)
            wallDuration =
                try container.contains(.wallDuration) ? container.decodeDuration(forKey: .wallDuration) : nil
            attempt = try container.decodeIfPresent(Int.self, forKey: .attempt) ?? 1
            samples = try container.decodeIfPresent([MetricSamples].self, forKey: .samples) ?? []
            applies = try container.decodeIfPresent(Bool.self, forKey: .applies) ?? true
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
            try container.encodeIfPresent(failureClass, forKey: .failureClass)
            if let wallDuration { try container.encode(rigTime: wallDuration, forKey: .wallDuration) }
            if attempt != 1 { try container.encode(attempt, forKey: .attempt) }
            if !samples.isEmpty { try container.encode(samples, forKey: .samples) }
            if !applies { try container.encode(false, forKey: .applies) }
        }
    }
}
