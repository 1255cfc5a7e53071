/// Everything wrong with one rig file (or one suite's options): at least one ``RigFileIssue``, sorted by position.
///
/// The loader reads the whole file before it throws, so one run shows every mistake. `description` is ONE line,
/// the first issue, with the number of further issues appended when there are any:
/// `rigs/bad.yaml:12:7: unknown profile 'esp-pointt' (expected esp-point, nano33-ble-sense or hrm) (+2 more)`.
/// ``report`` prints all of them, one per line, for a CLI.
public struct RigFileError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The file the issues are in, as given to the loader.
    public var file: String
    /// The issues in the order they appear in the file; never empty.
    public var issues: [RigFileIssue]

    /// Sorts `issues` by location, keeping the order of issues at the same place. `issues` must not be empty.
    public init(file: String, issues: [RigFileIssue]) {
        precondition(!issues.isEmpty, "a RigFileError holds at least one issue")
        self.file = file
        self.issues = issues.enumerated()
            .sorted { ($0.element.location, $0.offset) < ($1.element.location, $1.offset) }
            .map(\.element)
    }

    /// A single issue as an error.
    public init(_ issue: RigFileIssue) { self.init(file: issue.location.file, issues: [issue]) }

    /// The first issue.
    public var first: RigFileIssue { issues[0] }

    /// The first issue on one line, with ` (+N more)` when there are more.
    public var description: String {
        issues.count == 1 ? first.description : "\(first.description) (+\(issues.count - 1) more)"
    }

    /// Every issue, one per line.
    public var report: String { issues.map(\.description).joined(separator: "\n") }
}
