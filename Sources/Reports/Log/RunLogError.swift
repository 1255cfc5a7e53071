/// A run log that could not be written or read back: which line (1-based, when reading a file) and what was
/// wrong with it.
public struct RunLogError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The 1-based line of the JSON Lines text; nil when encoding, or when decoding a single line.
    public var line: Int?
    public var problem: String

    public init(line: Int?, problem: String) {
        self.line = line
        self.problem = problem
    }

    public var description: String {
        let place = line.map { "run log line \($0)" } ?? "run log event"
        return "\(place): \(problem). A run log holds one JSON run event per line, as RunLog.jsonLines() writes it; "
            + "check that the file is a blerig run log and was not cut short."
    }

    /// Says where in the event the decoder gave up and why, e.g. `at outcome.status: ... "passd" ...`.
    static func describe(_ error: Swift.DecodingError) -> String {
        func path(_ context: Swift.DecodingError.Context) -> String {
            let keys = context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }
            return keys.isEmpty ? "" : "at \(keys.joined(separator: ".")): "
        }
        switch error {
        case .keyNotFound(let key, let context):
            return "\(path(context))missing field \"\(key.stringValue)\""
        case .typeMismatch(let type, let context):
            return "\(path(context))expected \(type): \(context.debugDescription)"
        case .valueNotFound(let type, let context):
            return "\(path(context))expected a \(type), found null"
        case .dataCorrupted(let context):
            return "\(path(context))\(context.debugDescription)"
        @unknown default:
            return "\(error)"
        }
    }
}
