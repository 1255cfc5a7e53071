/// How one gate judged a run: an absolute limit on a metric, or a regression limit against a baseline run.
/// The gates testsuite of the JUnit, the summary's gates table and `blerig gate` all render these.
public struct GateVerdict: Codable, Sendable, Hashable {
    /// A gate's three answers. A regression gate without enough samples on either side says so rather than pass.
    public enum Decision: String, Codable, Sendable, Hashable, CaseIterable {
        case held
        case breached
        case notEnoughData = "not-enough-data"
    }

    public enum Kind: String, Codable, Sendable, Hashable {
        /// A limit on the value itself: `handshake.ready_ms.p50 <= 800`.
        case absolute
        /// A limit on the change against a baseline, decided by a statistical test on the raw samples.
        case regression
    }

    /// The gate as written in the gates file: `handshake.ready_ms.p50 <= 800`.
    public var gate: String
    /// What it applies to: `rig`, `board esp-01`, `profile esp-point`.
    public var scope: String
    public var kind: Kind
    public var decision: Decision
    /// The run's value (absolute) or the run's statistic (regression); nil when the run has none.
    public var measured: Double?
    /// The baseline's value, for a regression gate.
    public var baseline: Double?
    /// One line: what was compared and why it decided so.
    public var message: String
    /// Evidence: sample counts, the test's statistic and p-value, the effect size, where the gate is defined.
    public var details: String

    public init(
        gate: String, scope: String, kind: Kind, decision: Decision, measured: Double? = nil, baseline: Double? = nil,
        message: String, details: String = ""
    ) {
        self.gate = gate
        self.scope = scope
        self.kind = kind
        self.decision = decision
        self.measured = measured
        self.baseline = baseline
        self.message = message
        self.details = details
    }
}
