import Reports

/// Judges a finished run before its final reports are written: the release gates. The campaign knows only this
/// protocol; the `Gates` target implements it (a gates file and a baseline), and the CLI passes one in
/// ``RunOptions/judge``.
public protocol RunJudge: Sendable {
    func judge(_ result: RunResult) async -> RunJudgement
}

/// What a ``RunJudge`` found: a verdict per gate, files for the run directory, lines for the summary.
public struct RunJudgement: Sendable {
    public var verdicts: [GateVerdict]
    /// Files written into the run directory beside junit.xml (`gates.json`): name and text.
    public var files: [(name: String, text: String)]
    /// Appended to summary.txt.
    public var summary: String

    public init(verdicts: [GateVerdict], files: [(name: String, text: String)] = [], summary: String = "") {
        self.verdicts = verdicts
        self.files = files
        self.summary = summary
    }

    /// Whether any gate was breached: the run exits with ``ExitStatus/gateBreached`` unless something worse
    /// happened.
    public var breached: Bool { verdicts.contains { $0.decision == .breached } }
}
