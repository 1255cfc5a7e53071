/// How a check ended. A failure is the device or link not meeting what the check expects; an error is the
/// check itself not getting that far (a lease lost, a board that never booted, an exception in the suite); an
/// interruption is the run being stopped while the check was in flight.
public enum TestOutcome: Sendable, Hashable {
    case passed
    /// `message` is one line saying what was expected and what was measured, e.g.
    /// `handshake.ready_ms p95 212.4 ms > 150 ms`; `details` is free text (several lines are fine).
    case failed(message: String, details: String)
    case skipped(reason: String)
    case error(message: String, details: String)
    /// The check was in flight when the run was stopped, so it has no verdict of its own. `reason` says what
    /// stopped it: `SIGINT received`, `--timeout 30 s reached`, `check timeout 20 s reached`, `virtual farm
    /// horizon reached`. Reports count it as an error (JUnit has no other place for it) and mark it as
    /// interrupted; ``TestCounts/interrupted`` counts it separately as well.
    case interrupted(reason: String)

    /// A failure for a measured value above the most it may be: message `<metric> p95 212.4 ms > 150 ms`.
    public static func exceeded(_ measured: MeasuredValue, limit: Double, details: String = "") -> TestOutcome {
        .failed(message: limitMessage(measured, "> \(NumberText.human(limit))"), details: details)
    }

    /// A failure for a measured value below the least it must be: message `<metric> value 42 kB/s < 60 kB/s`.
    public static func fellShort(_ measured: MeasuredValue, of minimum: Double, details: String = "") -> TestOutcome {
        .failed(message: limitMessage(measured, "< \(NumberText.human(minimum))"), details: details)
    }

    private static func limitMessage(_ measured: MeasuredValue, _ relation: String) -> String {
        let unit = measured.unit.rawValue.isEmpty ? "" : " \(measured.unit.rawValue)"
        return "\(measured.metric) \(measured.reading) \(relation)\(unit)"
    }
}

extension TestOutcome: Codable {
    private enum CodingKeys: String, CodingKey { case status, message, details, reason }
    private enum Status: String, Codable { case passed, failed, skipped, error, interrupted }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        switch try container.decode(Status.self, forKey: .status) {
        case .passed: self = .passed
        case .failed:
            self = .failed(
                message: try container.decode(String.self, forKey: .message),
                details: try container.decodeIfPresent(String.self, forKey: .details) ?? "")
        case .skipped: self = .skipped(reason: try container.decode(String.self, forKey: .reason))
        case .error:
            self = .error(
                message: try container.decode(String.self, forKey: .message),
                details: try container.decodeIfPresent(String.self, forKey: .details) ?? "")
        case .interrupted: self = .interrupted(reason: try container.decode(String.self, forKey: .reason))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .passed:
            try container.encode(Status.passed, forKey: .status)
        case .failed(let message, let details):
            try container.encode(Status.failed, forKey: .status)
            try container.encode(message, forKey: .message)
            try container.encode(details, forKey: .details)
        case .skipped(let reason):
            try container.encode(Status.skipped, forKey: .status)
            try container.encode(reason, forKey: .reason)
        case .error(let message, let details):
            try container.encode(Status.error, forKey: .status)
            try container.encode(message, forKey: .message)
            try container.encode(details, forKey: .details)
        case .interrupted(let reason):
            try container.encode(Status.interrupted, forKey: .status)
            try container.encode(reason, forKey: .reason)
        }
    }
}
