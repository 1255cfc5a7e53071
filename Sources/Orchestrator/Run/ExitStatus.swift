/// How `blerig` exits: the one place these numbers are defined. The CLI, `--help` and docs/cli.md all print
/// ``table``, and a test (`DocumentationTests`) keeps docs/cli.md in step with it. A command that uses only some of
/// them prints its own subset in its `--help` (``table(_:)``), with its own wording where the general one does not fit.
public enum ExitStatus: Int32, Sendable, CaseIterable, CustomStringConvertible {
    /// Every check passed.
    case passed = 0
    /// At least one check failed, erred or hit its own timeout; the reports say which.
    case checksFailed = 1
    /// The command line or the rig file is wrong; nothing ran.
    case usage = 2
    /// The bench or the output failed: a radio missing, a report directory that cannot be written, a full disk,
    /// a virtual farm that could not finish. Whatever ran is in the reports.
    case infrastructure = 3
    /// Every check passed but a release gate was breached (`--gates`, or `gates:` in the rig); gates.json and the
    /// JUnit's `gates` testsuite say which.
    case gateBreached = 4
    /// The run was stopped early: SIGINT, SIGTERM, `--timeout`, or the virtual farm's horizon. Checks in flight
    /// are marked interrupted and every report is written. 128 + SIGINT, as shells report an interrupted command.
    case interrupted = 130

    /// One line per status, for `--help` and docs/cli.md:
    /// ```
    ///   0    every check passed
    /// ```
    public static var table: String { table(allCases.map { ($0, $0.description) }) }

    /// The lines for `statuses`, each with its general meaning, in the order given.
    public static func table(_ statuses: [ExitStatus]) -> String { table(statuses.map { ($0, $0.description) }) }

    /// The lines for a command's own statuses, each with the meaning that command gives it.
    public static func table(_ entries: [(ExitStatus, String)]) -> String {
        entries.map { line($0.0, $0.1) }.joined(separator: "\n")
    }

    /// `  0    what it means`, in the layout of ``table``.
    static func line(_ status: ExitStatus, _ meaning: String) -> String {
        let code = String(status.rawValue)
        return "  " + code + String(repeating: " ", count: max(1, 5 - code.count)) + meaning
    }

    public var description: String {
        switch self {
        case .passed: "every check passed"
        case .checksFailed: "a check failed, erred or timed out"
        case .usage: "the arguments or the rig file are wrong; nothing ran"
        case .infrastructure: "the bench or the output failed (radio missing, reports unwritable, disk full)"
        case .gateBreached: "a gate was breached (gates.json says which); the checks passed"
        case .interrupted: "interrupted (SIGINT, SIGTERM, --timeout); the reports hold what ran"
        }
    }
}
