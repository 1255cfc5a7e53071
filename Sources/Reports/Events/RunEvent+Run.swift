import BLECore
import Foundation

extension RunEvent {
    /// The first event of a run. Reports put the rig, seed and run id on every board's suite.
    public struct RunStarted: Codable, Sendable, Hashable {
        /// The run's id, also the name of its `reports/<run-id>/` directory.
        public var runID: String
        /// The rig's name from the rig file's `rig:` key.
        public var rig: String
        /// The rig file as given on the command line.
        public var rigFile: String
        /// The virtual farm's seed; nil on hardware.
        public var seed: UInt64?
        /// The radio, as the rig file names it: `virtual`, `bluez:hci0`, `hci:tcp:127.0.0.1:6402`.
        public var radio: String
        /// When the run started, on the wall clock. Kept exactly (seconds since 1970 as a JSON number).
        public var wallStart: Date
        /// The host the run ran on.
        public var host: String
        /// Every check the run means to run, per board: the testcases its reports have whatever happens. A
        /// planned check the log has no result for (the run was stopped, the bench did not open, the board was
        /// quarantined) is reported as skipped with why. Empty in logs from before plans were recorded.
        public var plan: [PlannedBoard]
        /// The rig file's SHA-256 (lowercase hex) as the run read it; nil in logs from before it was recorded.
        public var rigSHA256: String?
        /// The git revision of the repository the rig file is in (`git rev-parse HEAD`); nil outside a repository.
        public var rigRevision: String?

        public init(
            runID: String, rig: String, rigFile: String, seed: UInt64?, radio: String, wallStart: Date, host: String,
            plan: [PlannedBoard] = [], rigSHA256: String? = nil, rigRevision: String? = nil
        ) {
            self.runID = runID
            self.rig = rig
            self.rigFile = rigFile
            self.seed = seed
            self.radio = radio
            self.wallStart = wallStart
            self.host = host
            self.plan = plan
            self.rigSHA256 = rigSHA256
            self.rigRevision = rigRevision
        }

        private enum CodingKeys: String, CodingKey {
            case runID, rig, rigFile, seed, radio, wallStart, host, plan, rigSHA256, rigRevision
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            runID = try container.decode(String.self, forKey: .runID)
            rig = try container.decode(String.self, forKey: .rig)
            rigFile = try container.decode(String.self, forKey: .rigFile)
            seed = try container.decodeIfPresent(UInt64.self, forKey: .seed)
            radio = try container.decode(String.self, forKey: .radio)
            wallStart = Date(timeIntervalSince1970: try container.decode(Double.self, forKey: .wallStart))
            host = try container.decode(String.self, forKey: .host)
            plan = try container.decodeIfPresent([PlannedBoard].self, forKey: .plan) ?? []
            rigSHA256 = try container.decodeIfPresent(String.self, forKey: .rigSHA256)
            rigRevision = try container.decodeIfPresent(String.self, forKey: .rigRevision)
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(runID, forKey: .runID)
            try container.encode(rig, forKey: .rig)
            try container.encode(rigFile, forKey: .rigFile)
            try container.encodeIfPresent(seed, forKey: .seed)
            try container.encode(radio, forKey: .radio)
            try container.encode(wallStart.timeIntervalSince1970, forKey: .wallStart)
            try container.encode(host, forKey: .host)
            if !plan.isEmpty { try container.encode(plan, forKey: .plan) }
            try container.encodeIfPresent(rigSHA256, forKey: .rigSHA256)
            try container.encodeIfPresent(rigRevision, forKey: .rigRevision)
        }
    }

    /// The last event of a run. A run that was stopped early (a signal, the run's timeout, the virtual farm's
    /// horizon) still ends with one, saying why in ``interruption``.
    public struct RunFinished: Codable, Sendable, Hashable {
        /// The rig clock when the run ended.
        public var at: RigInstant
        /// How long the run took on the wall clock (in the virtual farm, far less than the rig time it covered).
        public var wallDuration: Duration
        /// Why the run stopped before it was done, e.g. `SIGINT received`, `--timeout 30 s reached`; nil for a run
        /// that ran to its end. Written only when set, so logs from before the field existed read the same.
        public var interruption: String?
        /// Whose fault the interruption is: ``FailureClass/infrastructure`` when the bench failed (it did not
        /// open, a controller's transport closed, a process blerig started died); nil for a signal, a timeout or
        /// the horizon, and for a run that was not interrupted. Reports show a bench failure as an error.
        public var interruptionClass: FailureClass?
        /// Every check whose last attempt did not pass or skip, with its class; written only when there is one.
        public var nonPasses: [NonPass]

        public init(
            at: RigInstant, wallDuration: Duration, interruption: String? = nil,
            interruptionClass: FailureClass? = nil, nonPasses: [NonPass] = []
        ) {
            self.at = at
            self.wallDuration = wallDuration
            self.interruption = interruption
            self.interruptionClass = interruptionClass
            self.nonPasses = nonPasses
        }

        private enum CodingKeys: String, CodingKey {
            case at, wallDuration, interruption, interruptionClass, nonPasses
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            at = try container.decodeInstant(forKey: .at)
            wallDuration = try container.decodeDuration(forKey: .wallDuration)
            interruption = try container.decodeIfPresent(String.self, forKey: .interruption)
            interruptionClass = try container.decodeIfPresent(FailureClass.self, forKey: .interruptionClass)
            nonPasses = try container.decodeIfPresent([NonPass].self, forKey: .nonPasses) ?? []
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(rigTime: at, forKey: .at)
            try container.encode(rigTime: wallDuration, forKey: .wallDuration)
            try container.encodeIfPresent(interruption, forKey: .interruption)
            try container.encodeIfPresent(interruptionClass, forKey: .interruptionClass)
            if !nonPasses.isEmpty { try container.encode(nonPasses, forKey: .nonPasses) }
        }
    }

    /// A check of a finished run that did not pass: where, how it ended, and whose fault it is (nil for a check
    /// interrupted by a signal or the run's timeout, which is nobody's).
    public struct NonPass: Codable, Sendable, Hashable {
        public var board: String
        public var suite: String
        public var test: String
        /// `failed`, `error` or `interrupted`.
        public var status: String
        public var failureClass: FailureClass?
        /// The outcome's one-line message or reason.
        public var message: String

        public init(
            board: String, suite: String, test: String, status: String, failureClass: FailureClass?, message: String
        ) {
            self.board = board
            self.suite = suite
            self.test = test
            self.status = status
            self.failureClass = failureClass
            self.message = message
        }
    }
}
