import Reports

/// What `blerig suites` says about a suite: what it does, the options it reads from the rig file with their
/// defaults, and every metric it reports with its unit, statistics and definition.
///
/// Each suite gives its own (``Suite/about``). Defaults are read from a suite built with no options
/// (``Suite/defaults``), never written twice; tests hold the rest to the code: the options listed are exactly
/// those the suite reads, and every metric a suite reports on a virtual run is listed, with its unit and, unless
/// it ``Metric/varies``, its definition word for word.
public struct SuiteAbout: Sendable, Hashable {
    /// One option of the suite's `suites:` entry.
    public struct Option: Sendable, Hashable {
        public var key: String
        /// The default, as it would be written in the rig file, with its unit.
        public var defaultValue: String
        public var meaning: String

        public init(_ key: String, _ defaultValue: String, _ meaning: String) {
            self.key = key
            self.defaultValue = defaultValue
            self.meaning = meaning
        }
    }

    /// One metric the suite reports.
    public struct Metric: Sendable, Hashable {
        public var name: String
        public var unit: MetricUnit
        /// The statistics reported (`p50`, `value`, `reason_<code>`, ...).
        public var statistics: [String]
        public var definition: String
        /// True when the definition written in the reports carries a number of the run (a window length, the
        /// link's capacity, an HCI reason): ``definition`` is then its general form.
        public var varies: Bool

        public init(
            _ name: String, _ unit: MetricUnit, _ statistics: [Statistic], _ definition: String, varies: Bool = false
        ) {
            self.name = name
            self.unit = unit
            self.statistics = statistics.map(\.rawValue)
            self.definition = definition
            self.varies = varies
        }

        /// A latency histogram's metric (``LatencyHistogram``): p50, p95, p99, max and count.
        public static func latency(_ name: String, _ definition: String) -> Metric {
            Metric(name, .milliseconds, [.p50, .p95, .p99, .max, .count], definition)
        }
    }

    public var name: String
    public var summary: String
    public var options: [Option]
    public var metrics: [Metric]

    public init(name: String, summary: String, options: [Option], metrics: [Metric]) {
        self.name = name
        self.summary = summary
        self.options = options
        self.metrics = metrics
    }
}

extension Suite {
    /// The suite as a rig that selects it without options gets it.
    static var defaults: Self {
        let diagnostics = RigDiagnostics()
        var reader = RigMappingReader(
            .emptyMapping(at: SourceLocation(file: "defaults", line: 1, column: 1)), noun: "\(name) options",
            diagnostics: diagnostics)!
        return Self(options: &reader)
    }

    /// The keys the suite reads from its options, in the order it reads them.
    static var optionKeys: [String] {
        let diagnostics = RigDiagnostics()
        var reader = RigMappingReader(
            .emptyMapping(at: SourceLocation(file: "defaults", line: 1, column: 1)), noun: "\(name) options",
            diagnostics: diagnostics)!
        _ = Self(options: &reader)
        return reader.knownKeys
    }
}

/// Numbers in option defaults, as a rig file would write them.
enum OptionText {
    static func seconds(_ duration: Duration) -> String { RigWording.number(duration.seconds) + " s" }
    static func hours(_ duration: Duration) -> String { RigWording.number(duration.seconds / 3600) + " h" }
    static func days(_ duration: Duration) -> String { RigWording.number(duration.seconds / 86_400) + " days" }
    static func minutes(_ duration: Duration) -> String { RigWording.number(duration.seconds / 60) + " min" }
}
