/// One problem found in a rig file: what kind, where, and a one-line message that says what was wrong and, where
/// it can, what was meant (`unknown key 'buad' in serial (did you mean 'baud'?)`).
///
/// Suites validating their own options (``SuiteSelection/options``) report problems of the same shape, so the
/// user sees every mistake in the file in one format.
public struct RigFileIssue: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kind of problem; a growing set of named codes.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// The file does not exist or cannot be read, or is not UTF-8.
        public static let unreadableFile = Code(rawValue: "unreadable-file")
        /// The file holds no YAML document (it is empty or only comments).
        public static let emptyFile = Code(rawValue: "empty-file")
        /// The text is not valid YAML; the message carries libyaml's explanation.
        public static let syntax = Code(rawValue: "syntax")
        /// The same key appears twice in one mapping.
        public static let duplicateKey = Code(rawValue: "duplicate-key")
        /// A key the format does not know.
        public static let unknownKey = Code(rawValue: "unknown-key")
        /// A key that must be present is missing or has no value.
        public static let missingKey = Code(rawValue: "missing-key")
        /// A value of the wrong kind: a list where a mapping belongs, a string where a number belongs, ...
        public static let wrongType = Code(rawValue: "wrong-type")
        /// A number outside its allowed range or step.
        public static let outOfRange = Code(rawValue: "out-of-range")
        /// A value of the right kind but not an allowed one: an unknown profile, a malformed address or version.
        public static let invalidValue = Code(rawValue: "invalid-value")
        /// A suite the orchestrator does not have.
        public static let unknownSuite = Code(rawValue: "unknown-suite")
        /// Two entries that must differ do not: board ids, serial ports, hub ports, addresses, suites.
        public static let conflict = Code(rawValue: "conflict")
        /// The file passes one of the loader's limits: too many nodes (aliases counted as what they repeat) or
        /// nesting too deep. It is the only issue reported for the file.
        public static let tooLarge = Code(rawValue: "too-large")
    }

    public var code: Code
    /// Where the problem is: the offending key or value, or the mapping that lacks a key.
    public var location: SourceLocation
    /// One line, without the location.
    public var message: String

    public init(_ code: Code, _ message: String, at location: SourceLocation) {
        self.code = code
        self.message = message
        self.location = location
    }

    /// `rigs/bad.yaml:12:7: unknown profile 'esp-pointt' (expected esp-point, nano33-ble-sense or hrm)`.
    public var description: String { "\(location): \(message)" }
}
