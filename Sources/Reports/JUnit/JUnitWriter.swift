import Foundation

/// Writes a run as JUnit XML that validates against the Jenkins xunit plugin's `junit-10.xsd`
/// (`Tests/ReportsTests/Fixtures/junit-10.xsd`). Hand-written: no XML library, every string escaped.
///
/// Layout:
/// - `<testsuites name=rig tests failures errors time>`: `time` is the rig clock when the run finished (rig
///   clocks start with the run); left out when the log has no `runFinished` (the orchestrator died first).
/// - one `<testsuite>` per board, in the order boards first appear in the log: `name` = board id,
///   `tests`/`failures`/`errors`/`skipped`, `time` = the board's rig time (`%.3f` s), `timestamp` = the run's
///   wall-clock start (UTC, `yyyy-MM-ddTHH:mm:ss`), `hostname`, `id` = the board's position from 0,
///   `package` = the rig.
/// - the suite's `<properties>`: run and board identity, attachments, and the measured numbers (see
///   `JUnitWriter+Properties.swift` for the names). The schema allows no `<properties>` inside `<testcase>`, so
///   a check's numbers are suite properties named `<suite>.<check>.<metric>.<statistic>`.
/// - one `<testcase classname="<board>.<suite>" name=check time>` per check, with `<failure>`, `<error>` or
///   `<skipped>`, and a `<system-out>` listing its numbers with their definitions. An interrupted check is an
///   `<error type="interrupted" message="interrupted: <reason>">` (counted in `errors`), whose text says which
///   check was in flight and where to look.
/// - the suite's `<system-out>`: the board's log lines and state transitions on the rig clock, the state it
///   finished in, its board-level numbers with their definitions (listed like a check's), then
///   `[[ATTACHMENT|path]]` lines (the Jenkins junit-attachments convention); `<system-err>`: the warnings and
///   errors among the log lines.
/// - a timeline folded with a limit (``RunResultBuilder/init(timelineLimit:)``): system-out has one line
///   `… 12345 timeline entries elided; the full log is in run.jsonl` where entries were left out, and
///   system-err, which lists only the kept warnings, one line `… 37 warning or error lines elided; ...` in the
///   same place when some of the left-out entries were warnings or errors.
/// - a run stopped early (``RunResult/interruption``): `<testsuites>` has no attribute for it in the schema, so
///   every suite says it, as the property `run.interrupted` and as the first line of its `<system-err>`,
///   `run interrupted: <reason>`. A CI page that shows any one board's suite shows why the run is incomplete.
public struct JUnitWriter: Sendable {
    public init() {}

    /// The JUnit document for a folded run, with a `gates` testsuite when `gates` has verdicts
    /// (`JUnitWriter+Gates.swift`).
    public func render(_ result: RunResult, gates: [GateVerdict] = []) -> String {
        var xml = XMLWriter()
        let counts = result.counts + Self.counts(of: gates)
        xml.start(
            "testsuites",
            [
                ("name", result.run?.rig ?? "blerig"), ("tests", String(counts.tests)),
                ("failures", String(counts.failed)), ("errors", String(counts.errors)),
                ("time", result.finished.map { NumberText.seconds3($0.at.sinceOrigin) }),
            ])
        for (index, board) in result.boards.enumerated() {
            suite(board, index: index, run: result, into: &xml)
        }
        gatesSuite(gates, index: result.boards.count, run: result, into: &xml)
        xml.end()
        return xml.output
    }

    /// The JUnit document for a recorded log.
    public func render(_ log: RunLog) -> String {
        render(RunResult(log))
    }

    /// Writes the document to `url` atomically (a reader never sees half a file).
    public func write(_ result: RunResult, to url: URL) throws {
        try Data(render(result).utf8).write(to: url, options: .atomic)
    }

    private func suite(_ board: BoardResult, index: Int, run result: RunResult, into xml: inout XMLWriter) {
        let counts = board.counts
        xml.start(
            "testsuite",
            [
                ("name", board.id), ("tests", String(counts.tests)), ("failures", String(counts.failed)),
                ("errors", String(counts.errors)), ("skipped", String(counts.skipped)),
                ("time", NumberText.seconds3(board.elapsed)),
                ("timestamp", result.run.map { NumberText.timestamp($0.wallStart) }),
                ("hostname", result.run?.host), ("id", String(index)), ("package", result.run?.rig),
            ])
        let properties = Self.properties(board, run: result)
        if !properties.isEmpty {
            xml.start("properties")
            for property in properties {
                xml.empty("property", [("name", property.name), ("value", property.value)])
            }
            xml.end()
        }
        for test in board.tests {
            testCase(test, into: &xml)
        }
        xml.element("system-out", text: Self.systemOut(board))
        let warnings = Self.systemErr(board, run: result)
        if !warnings.isEmpty { xml.element("system-err", text: warnings) }
        xml.end()
    }

    private func testCase(_ test: TestResult, into xml: inout XMLWriter) {
        let attributes: XMLWriter.Attributes = [
            ("name", test.name), ("classname", "\(test.board).\(test.suite)"),
            ("time", NumberText.seconds3(test.duration)),
        ]
        let measured = Self.measurementListing(test.measurements)
        if case .passed = test.outcome, measured.isEmpty {
            xml.empty("testcase", attributes)
            return
        }
        xml.start("testcase", attributes)
        switch test.outcome {
        case .passed:
            break
        case .failed(_, let details):
            xml.element("failure", [("message", test.headline), ("type", "failure")], text: details)
        case .error(_, let details):
            xml.element("error", [("message", test.headline), ("type", "error")], text: details)
        case .interrupted(let reason):
            xml.element(
                "error", [("message", "interrupted: \(reason)"), ("type", "interrupted")],
                text: Self.interruptedDetails(test))
        case .skipped(let reason):
            xml.empty("skipped", [("message", reason)])
        }
        if !measured.isEmpty { xml.element("system-out", text: measured) }
        xml.end()
    }

    /// The text of an interrupted check's `<error>`: the message names only the reason, so this says which
    /// check it was and where to look.
    static func interruptedDetails(_ test: TestResult) -> String {
        "\(test.board) \(test.suite).\(test.name) started at \(NumberText.rigTime(test.started)) and was stopped "
            + "before it reached a verdict. The board's log in the suite's system-out shows how far it got."
    }
}
