/// What `blerig doctor` found: sections (Bluetooth, serial ports, hubs, permissions, the rig), each a list of
/// findings. A problem always carries its fix; a rig binding that cannot be resolved makes the command fail.
public struct DoctorReport: Sendable, Hashable {
    public enum Level: String, Sendable, Hashable, Comparable {
        case ok, info, warning, problem

        private var rank: Int {
            switch self {
            case .ok: 0
            case .info: 1
            case .warning: 2
            case .problem: 3
            }
        }

        public static func < (a: Level, b: Level) -> Bool { a.rank < b.rank }

        /// `[ok]`, `[info]`, `[warn]`, `[problem]`: the mark a finding's line starts with.
        var mark: String { self == .warning ? "[warn]" : "[\(rawValue)]" }
    }

    public struct Finding: Sendable, Hashable {
        public var level: Level
        public var text: String
        /// What to do about it: every warning and problem has one.
        public var fix: String?
        /// A rig binding that could not be resolved: the command exits nonzero.
        public var unresolvedBinding: Bool

        public init(_ level: Level, _ text: String, fix: String? = nil, unresolvedBinding: Bool = false) {
            precondition(level < .warning || fix != nil, "a \(level) needs its fix: \(text)")
            self.level = level
            self.text = text
            self.fix = fix
            self.unresolvedBinding = unresolvedBinding
        }
    }

    public struct Section: Sendable, Hashable {
        public var title: String
        public var findings: [Finding]

        public init(_ title: String, _ findings: [Finding]) {
            self.title = title
            self.findings = findings
        }
    }

    public var sections: [Section]

    public init(sections: [Section]) { self.sections = sections }

    public var findings: [Finding] { sections.flatMap(\.findings) }

    /// Whether some binding of the rig could not be resolved.
    public var hasUnresolvedBindings: Bool { findings.contains(where: \.unresolvedBinding) }

    /// The report as `blerig doctor` prints it: each section's title, then one line per finding with its mark
    /// and, indented below, its fix; a summary line at the end.
    public var lines: [String] {
        var lines: [String] = []
        for section in sections where !section.findings.isEmpty {
            lines.append(section.title)
            for finding in section.findings {
                lines.append("  \(finding.level.mark) \(finding.text)")
                if let fix = finding.fix { lines.append("        fix: \(fix)") }
            }
        }
        let problems = findings.filter { $0.level == .problem }.count
        let warnings = findings.filter { $0.level == .warning }.count
        let unresolved = findings.filter(\.unresolvedBinding).count
        var summary = "\(problems) problem\(problems == 1 ? "" : "s"), \(warnings) warning\(warnings == 1 ? "" : "s")"
        if unresolved > 0 { summary += "; \(unresolved) rig binding\(unresolved == 1 ? "" : "s") not resolved" }
        lines.append(summary)
        return lines
    }
}
