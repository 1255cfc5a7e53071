import BLECore

extension RunEvent {
    /// A board was leased for the run. Its identity goes into the board's JUnit suite properties.
    public struct BoardStarted: Codable, Sendable, Hashable {
        /// The board's id from the rig file (`esp-01`); the name of its JUnit suite.
        public var board: String
        /// The device profile the board runs (`esp-point`, `nano33-ble-sense`, `hrm`).
        public var profile: String
        /// What identifies the physical board, in the order reports list it.
        public var identity: [IdentityField]
        public var at: RigInstant

        public init(board: String, profile: String, identity: [IdentityField] = [], at: RigInstant) {
            self.board = board
            self.profile = profile
            self.identity = identity
            self.at = at
        }

        private enum CodingKeys: String, CodingKey { case board, profile, identity, at }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            board = try container.decode(String.self, forKey: .board)
            profile = try container.decode(String.self, forKey: .profile)
            identity = try container.decodeIfPresent([IdentityField].self, forKey: .identity) ?? []
            at = try container.decodeInstant(forKey: .at)
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(board, forKey: .board)
            try container.encode(profile, forKey: .profile)
            try container.encode(identity, forKey: .identity)
            try container.encode(rigTime: at, forKey: .at)
        }
    }

    /// The orchestrator released a board: when, in which state, and the numbers about the board's run that are
    /// not any one check's.
    public struct BoardFinished: Codable, Sendable, Hashable {
        public var board: String
        public var at: RigInstant
        /// The board's final strategy state, e.g. `off` or `quarantined`; nil when the orchestrator did not say.
        public var state: String?
        /// Numbers about the board's run as a whole, each with its definition, e.g. `schedule.link_wait_ms`
        /// (how long the board waited for a radio link) as `value`, `max` and `count`.
        public var measurements: [MeasuredValue]

        public init(board: String, at: RigInstant, state: String? = nil, measurements: [MeasuredValue] = []) {
            self.board = board
            self.at = at
            self.state = state
            self.measurements = measurements
        }

        private enum CodingKeys: String, CodingKey { case board, at, state, measurements }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            board = try container.decode(String.self, forKey: .board)
            at = try container.decodeInstant(forKey: .at)
            state = try container.decodeIfPresent(String.self, forKey: .state)
            measurements = try container.decodeIfPresent([MeasuredValue].self, forKey: .measurements) ?? []
        }

        /// `state` and `measurements` are written only when there are some, so a board without them gives the
        /// same line as before the fields existed.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(board, forKey: .board)
            try container.encode(rigTime: at, forKey: .at)
            try container.encodeIfPresent(state, forKey: .state)
            if !measurements.isEmpty { try container.encode(measurements, forKey: .measurements) }
        }
    }

    /// A file about a board was written, at a path relative to the run's report directory.
    public struct Attachment: Codable, Sendable, Hashable {
        public var board: String
        /// What the file is: ``Kind/btsnoop``, ``Kind/console``, ...
        public var kind: Kind
        /// Relative to `reports/<run-id>/`, e.g. `captures/esp-01.btsnoop`.
        public var path: String
        public var at: RigInstant

        public init(board: String, kind: Kind, path: String, at: RigInstant) {
            self.board = board
            self.kind = kind
            self.path = path
            self.at = at
        }

        /// The kind of an attached file.
        public struct Kind: RawRepresentable, Codable, Sendable, Hashable, CustomStringConvertible {
            public let rawValue: String
            public init(rawValue: String) { self.rawValue = rawValue }
            public init(_ rawValue: String) { self.rawValue = rawValue }

            /// An HCI capture in btsnoop format (opens in Wireshark).
            public static let btsnoop = Self("btsnoop")
            /// The board's serial console, as text.
            public static let console = Self("console")

            public var description: String { rawValue }
        }

        private enum CodingKeys: String, CodingKey { case board, kind, path, at }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            board = try container.decode(String.self, forKey: .board)
            kind = try container.decode(Kind.self, forKey: .kind)
            path = try container.decode(String.self, forKey: .path)
            at = try container.decodeInstant(forKey: .at)
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(board, forKey: .board)
            try container.encode(kind, forKey: .kind)
            try container.encode(path, forKey: .path)
            try container.encode(rigTime: at, forKey: .at)
        }
    }
}

/// One key/value that identifies a physical board: its address, advertised name, firmware, serial port.
/// Reports write it as the JUnit suite property `board.<key>`.
public struct IdentityField: Codable, Sendable, Hashable {
    public var key: String
    public var value: String

    public init(key: String, value: String) {
        self.key = key
        self.value = value
    }

    /// The Bluetooth device address, `24:0A:C4:12:1A:2B`.
    public static func address(_ value: String) -> Self { Self(key: "address", value: value) }
    /// The local name the board advertises.
    public static func advertisedName(_ value: String) -> Self { Self(key: "name", value: value) }
    /// The firmware version the board reported.
    public static func firmware(_ value: String) -> Self { Self(key: "firmware", value: value) }
    /// The serial port its console is on.
    public static func serialPort(_ value: String) -> Self { Self(key: "serial", value: value) }
}
