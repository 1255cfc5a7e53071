import Orchestrator
import Reports

/// One gate of a gates file: what it limits, over which boards, and where it is written.
public struct Gate: Sendable, Hashable {
    public enum Rule: Sendable, Hashable {
        case absolute(AbsoluteLimit)
        case regression(RegressionLimit)
    }

    public var rule: Rule
    public var scope: GateScope
    /// Where the gate is written in the gates file.
    public var location: SourceLocation

    public init(_ rule: Rule, scope: GateScope = .rig, at location: SourceLocation) {
        self.rule = rule
        self.scope = scope
        self.location = location
    }

    /// The gate as people read it: `handshake.ready_ms.p50 <= 800`,
    /// `handshake.ready_ms.p50 regression: at most +10 %`.
    public var text: String {
        switch rule {
        case .absolute(let limit): limit.text
        case .regression(let limit): limit.text
        }
    }

    public var kind: GateVerdict.Kind {
        switch rule {
        case .absolute: .absolute
        case .regression: .regression
        }
    }

    public var metric: String {
        switch rule {
        case .absolute(let limit): limit.metric
        case .regression(let limit): limit.metric
        }
    }
}

/// Which boards a gate speaks for.
public enum GateScope: Sendable, Hashable, CustomStringConvertible {
    /// Every board of the run: each one that measures the metric must hold the gate.
    case rig
    /// The boards of one device profile (`esp-point`).
    case profile(String)
    /// One board, by its id in the rig file.
    case board(String)

    /// `rig`, `profile esp-point`, `board esp-01`: ``GateVerdict/scope``.
    public var description: String {
        switch self {
        case .rig: "rig"
        case .profile(let profile): "profile \(profile)"
        case .board(let board): "board \(board)"
        }
    }

    /// Whether a board of `profile` called `id` is in scope.
    public func contains(board id: String, profile: String?) -> Bool {
        switch self {
        case .rig: true
        case .profile(let wanted): profile == wanted
        case .board(let wanted): id == wanted
        }
    }
}

/// A limit on a value the run measured: `<metric>.<statistic> <comparison> <limit>`.
public struct AbsoluteLimit: Sendable, Hashable {
    public enum Comparison: String, Sendable, Hashable, CaseIterable {
        case atMost = "<="
        case below = "<"
        case atLeast = ">="
        case above = ">"

        public func holds(_ value: Double, _ limit: Double) -> Bool {
            switch self {
            case .atMost: value <= limit
            case .below: value < limit
            case .atLeast: value >= limit
            case .above: value > limit
            }
        }

        /// Whether larger values are worse: the worst of several is their maximum.
        var largerIsWorse: Bool { self == .atMost || self == .below }
    }

    public var metric: String
    public var statistic: Statistic
    public var comparison: Comparison
    public var limit: Double

    public init(metric: String, statistic: Statistic, comparison: Comparison, limit: Double) {
        self.metric = metric
        self.statistic = statistic
        self.comparison = comparison
        self.limit = limit
    }

    public var text: String {
        "\(metric).\(statistic) \(comparison.rawValue) \(GateNumber.text(limit))"
    }
}

/// A limit on how far a metric may move against a baseline run, decided on the raw samples.
public struct RegressionLimit: Sendable, Hashable {
    /// Which way is worse.
    public enum Direction: String, Sendable, Hashable {
        /// Larger is worse (latencies, durations): `max_increase`.
        case increase
        /// Smaller is worse (throughput, rates of success): `max_decrease`.
        case decrease
    }

    /// The statistical test that decides whether the run differs from the baseline at all.
    public enum Test: String, Sendable, Hashable, CaseIterable {
        /// One-sided Mann-Whitney U on the samples (exact for small samples without ties).
        case mannWhitney = "mann-whitney"
        /// Percentile bootstrap interval of the quantile's shift, seeded.
        case bootstrap
        /// Both must find the shift: fewer false alarms, a little less power.
        case both
    }

    public var metric: String
    /// The quantile compared and whose shift is limited, 0...1 (0.5, the median, unless `statistic:` says).
    public var quantile: Double
    public var direction: Direction
    /// The largest allowed change of the quantile, as a fraction of the baseline's (0.1 for 10 %).
    public var maxChange: Double
    /// The smallest change, in the metric's unit, that can breach the gate, however significant.
    public var minEffect: Double
    /// Below this many samples on either side, per board, the answer is not enough data.
    public var minSamples: Int
    public var test: Test
    /// The false-alarm rate the whole gate allows; split evenly over the boards it compares.
    public var alpha: Double
    /// Bootstrap resamples and seed (used by `bootstrap` and `both`).
    public var resamples: Int
    public var seed: UInt64

    public init(
        metric: String, quantile: Double = 0.5, direction: Direction = .increase, maxChange: Double,
        minEffect: Double = 0, minSamples: Int = 20, test: Test = .mannWhitney, alpha: Double = 0.01,
        resamples: Int = 2_000, seed: UInt64 = 1
    ) {
        self.metric = metric
        self.quantile = quantile
        self.direction = direction
        self.maxChange = maxChange
        self.minEffect = minEffect
        self.minSamples = minSamples
        self.test = test
        self.alpha = alpha
        self.resamples = resamples
        self.seed = seed
    }

    /// `p50`, `p95`: the compared quantile's name.
    public var statisticName: String { "p" + GateNumber.text(quantile * 100) }

    public var text: String {
        let sign = direction == .increase ? "+" : "−"
        return "\(metric).\(statisticName) regression: at most \(sign)\(GateNumber.text(maxChange * 100)) %"
    }
}
