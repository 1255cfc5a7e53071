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

/// Helpers for messages that say what was meant.
public enum RigWording {
    /// `a`, `a or b`, `a, b or c`.
    public static func list(_ items: [String], conjunction: String = "or") -> String {
        switch items.count {
        case 0: return "nothing"
        case 1: return items[0]
        default: return items.dropLast().joined(separator: ", ") + " \(conjunction) " + items[items.count - 1]
        }
    }

    /// The candidate closest to `word` if it is close enough to be a likely typo (edit distance with
    /// transpositions, ignoring case, at most a third of the word's length but at least 1 or 2), or if one is a
    /// prefix of the other.
    public static func suggestion(for word: String, among candidates: [String]) -> String? {
        let lowered = word.lowercased()
        guard !lowered.isEmpty else { return nil }
        let allowed = lowered.count <= 3 ? 1 : max(2, lowered.count / 3)
        var best: (candidate: String, distance: Int)?
        for candidate in candidates {
            let other = candidate.lowercased()
            var distance = editDistance(Array(lowered.unicodeScalars), Array(other.unicodeScalars))
            if distance > allowed, other.hasPrefix(lowered) || lowered.hasPrefix(other),
                min(other.count, lowered.count) >= 3
            {
                distance = allowed
            }
            if distance <= allowed, distance < (best?.distance ?? .max) { best = (candidate, distance) }
        }
        return best?.candidate
    }

    /// ` (did you mean 'baud'?)` or ` (expected port, baud or reset)`.
    public static func hint(for word: String, among candidates: [String]) -> String {
        if let suggestion = suggestion(for: word, among: candidates) { return " (did you mean '\(suggestion)'?)" }
        return candidates.isEmpty ? "" : " (expected \(list(candidates)))"
    }

    /// A number as written in messages: `4000`, `7.5`, `0.625`.
    public static func number(_ value: Double) -> String {
        if value.rounded() == value, abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }

    /// Optimal string alignment distance: insertions, deletions, substitutions and adjacent transpositions.
    static func editDistance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous2 = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], previous2[j - 2] + 1)
                }
            }
            (previous2, previous, current) = (previous, current, previous2)
        }
        return previous[b.count]
    }
}
