import BLECore

extension RunEvent {
    /// A line logged about a board: its console, the central stack, the orchestrator.
    public struct LogLine: Codable, Sendable, Hashable {
        public var board: String
        /// When, on the rig clock.
        public var at: RigInstant
        public var level: LogLevel
        /// Who logged it: `console`, `central`, `orchestrator`, ...
        public var source: String
        public var message: String

        public init(board: String, at: RigInstant, level: LogLevel, source: String, message: String) {
            self.board = board
            self.at = at
            self.level = level
            self.source = source
            self.message = message
        }

        private enum CodingKeys: String, CodingKey { case board, at, level, source, message }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            board = try container.decode(String.self, forKey: .board)
            at = try container.decodeInstant(forKey: .at)
            level = try container.decode(LogLevel.self, forKey: .level)
            source = try container.decode(String.self, forKey: .source)
            message = try container.decode(String.self, forKey: .message)
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(board, forKey: .board)
            try container.encode(rigTime: at, forKey: .at)
            try container.encode(level, forKey: .level)
            try container.encode(source, forKey: .source)
            try container.encode(message, forKey: .message)
        }
    }

    /// A board moved from one strategy state to another (labgrid-style: off, booting, ready, ...).
    public struct StateTransition: Codable, Sendable, Hashable {
        public var board: String
        public var at: RigInstant
        public var from: String
        public var to: String
        /// Why it moved: "boot banner seen", "power cycle after 3 failed connects".
        public var reason: String

        public init(board: String, at: RigInstant, from: String, to: String, reason: String) {
            self.board = board
            self.at = at
            self.from = from
            self.to = to
            self.reason = reason
        }

        private enum CodingKeys: String, CodingKey { case board, at, from, to, reason }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            board = try container.decode(String.self, forKey: .board)
            at = try container.decodeInstant(forKey: .at)
            from = try container.decode(String.self, forKey: .from)
            to = try container.decode(String.self, forKey: .to)
            reason = try container.decode(String.self, forKey: .reason)
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(board, forKey: .board)
            try container.encode(rigTime: at, forKey: .at)
            try container.encode(from, forKey: .from)
            try container.encode(to, forKey: .to)
            try container.encode(reason, forKey: .reason)
        }
    }
}

/// The severity of a ``RunEvent/LogLine``, with swift-log's names so the orchestrator can map its levels 1:1.
public struct LogLevel: RawRepresentable, Codable, Sendable, Hashable, Comparable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let trace = Self(rawValue: "trace")
    public static let debug = Self(rawValue: "debug")
    public static let info = Self(rawValue: "info")
    public static let notice = Self(rawValue: "notice")
    public static let warning = Self(rawValue: "warning")
    public static let error = Self(rawValue: "error")
    public static let critical = Self(rawValue: "critical")

    private static let ranks: [Self] = [.trace, .debug, .info, .notice, .warning, .error, .critical]

    /// The position in trace < debug < ... < critical; a level with an unknown name ranks with `info`.
    var rank: Int { Self.ranks.firstIndex(of: self) ?? 2 }

    /// Orders by severity; levels of equal rank (an unknown name next to `info`) by name, so the order is total.
    public static func < (a: Self, b: Self) -> Bool { (a.rank, a.rawValue) < (b.rank, b.rawValue) }

    public var description: String { rawValue }
}
