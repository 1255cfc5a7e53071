/// Collects the issues found while reading one file, so that a load reports all of them at once.
///
/// A reference type because every reader of one file shares it; it lives only for one load and is not `Sendable`.
public final class RigDiagnostics {
    public private(set) var issues: [RigFileIssue] = []

    public init() {}

    public var isEmpty: Bool { issues.isEmpty }

    public func record(_ issue: RigFileIssue) { issues.append(issue) }

    public func record(_ code: RigFileIssue.Code, _ message: String, at location: SourceLocation) {
        issues.append(RigFileIssue(code, message, at: location))
    }

    /// Throws every recorded issue as one error, if there is any.
    public func throwIfAny(file: String) throws(RigFileError) {
        if !issues.isEmpty { throw RigFileError(file: file, issues: issues) }
    }
}

/// Reads one mapping of a rig file key by key, recording every problem instead of stopping at the first.
///
/// Ask for every key the mapping may hold (each read registers the key as known), then call
/// ``rejectUnknownKeys()``: it reports the keys nobody asked for, suggesting the nearest known key. A key written
/// with no value (`baud:`) reads as absent. Conversions that fail record their issue and return nil.
///
/// ```swift
/// guard var reader = RigMappingReader(options, noun: "handshake options", diagnostics: diagnostics) else { ... }
/// let connections = reader.integer("connections", in: 1...10_000) ?? 20
/// reader.rejectUnknownKeys()
/// ```
public struct RigMappingReader {
    public let node: RigNode
    /// What the mapping is, for messages: `serial`, `board 'esp-01'`, `handshake options`.
    public var noun: String
    public let diagnostics: RigDiagnostics
    /// The keys read so far, in the order they were asked for.
    public private(set) var knownKeys: [String] = []
    private let entries: [RigNode.Entry]

    /// Nil, after recording a wrong-type issue, when `node` is not a mapping. A null node reads as empty.
    public init?(_ node: RigNode, noun: String, diagnostics: RigDiagnostics) {
        if let entries = node.entries {
            self.entries = entries
        } else if node.isNull {
            self.entries = []
        } else {
            diagnostics.record(
                .wrongType, "\(noun) must be a mapping of keys to values, found \(node.summary)",
                at: node.location)
            return nil
        }
        self.node = node
        self.noun = noun
        self.diagnostics = diagnostics
    }

    /// The value of `key`, registering it as known; nil when absent or null.
    public mutating func value(_ key: String) -> RigNode? {
        if !knownKeys.contains(key) { knownKeys.append(key) }
        guard let entry = entries.first(where: { $0.key == key }), !entry.value.isNull else { return nil }
        return entry.value
    }

    /// Whether `key` is written, even without a value; registers it as known.
    public mutating func contains(_ key: String) -> Bool {
        if !knownKeys.contains(key) { knownKeys.append(key) }
        return entries.contains { $0.key == key }
    }

    /// Where `key` is written, if it is.
    public func keyLocation(_ key: String) -> SourceLocation? { entries.first { $0.key == key }?.keyLocation }

    /// The value of `key` converted by `convert`; nil when absent (recorded as missing if `required`) or when the
    /// conversion fails (recorded).
    public mutating func read<T>(
        _ key: String, required: Bool = false, _ convert: (RigNode) throws(RigFileIssue) -> T
    ) -> T? {
        guard let node = value(key) else {
            if required { recordMissing(key) }
            return nil
        }
        do {
            return try convert(node)
        } catch {
            diagnostics.record(error)
            return nil
        }
    }

    /// Records that `key` is missing from this mapping (or written without a value).
    public func recordMissing(_ key: String, because reason: String = "") {
        let written = entries.first { $0.key == key }
        diagnostics.record(
            .missingKey, "\(noun) needs '\(key)'\(written == nil ? "" : " to have a value")\(reason)",
            at: written?.keyLocation ?? node.location)
    }

    public mutating func string(_ key: String, required: Bool = false) -> String? {
        read(key, required: required) { node throws(RigFileIssue) in try node.string(for: key) }
    }

    public mutating func integer<T: FixedWidthInteger>(
        _ key: String, in range: ClosedRange<T>, required: Bool = false
    ) -> T? {
        read(key, required: required) { node throws(RigFileIssue) in try node.integer(for: key, in: range) }
    }

    public mutating func number(
        _ key: String, in range: ClosedRange<Double>, step: Double? = nil, unit: String = "", required: Bool = false
    ) -> Double? {
        read(key, required: required) { node throws(RigFileIssue) in
            try node.number(for: key, in: range, step: step, unit: unit)
        }
    }

    public mutating func bool(_ key: String, required: Bool = false) -> Bool? {
        read(key, required: required) { node throws(RigFileIssue) in try node.bool(for: key) }
    }

    public mutating func choice<T: RawRepresentable & CaseIterable>(
        _ key: String, noun: String, _ type: T.Type = T.self, required: Bool = false
    ) -> T? where T.RawValue == String {
        read(key, required: required) { node throws(RigFileIssue) in try node.choice(for: key, noun: noun, type) }
    }

    /// Records every key that was not asked for, with the nearest known key or the list of known keys.
    public func rejectUnknownKeys() {
        for entry in entries where !knownKeys.contains(entry.key) {
            diagnostics.record(
                .unknownKey,
                "unknown key \(RigWording.quoted(entry.key)) in \(noun)"
                    + RigWording.hint(for: entry.key, among: knownKeys),
                at: entry.keyLocation)
        }
    }
}
