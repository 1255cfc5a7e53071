import Foundation

/// Writes a run as JUnit XML that validates against the Jenkins xunit plugin's `junit-10.xsd`, with each
/// testcase's children in the order and shape of Maven Surefire's `surefire-test-report-3.0.xsd` (both in
/// `Tests/ReportsTests/Fixtures`, with where they come from). Hand-written: no XML library, every string escaped.
///
/// Layout:
/// - `<testsuites name=rig tests failures errors time>`: `time` is the run's wall-clock duration; left out when
///   the log has no `runFinished` (the orchestrator died first).
/// - one `<testsuite>` per board, in the plan's order (the rig's), then boards not planned in the order they first
///   appear in the log:
///   `name` = board id, `tests`/`failures`/`errors`/`skipped`, `time` = the wall-clock time of its checks
///   (`%.3f` s), `timestamp` = the run's wall-clock start (UTC, `yyyy-MM-ddTHH:mm:ss`), `hostname`, `id` = the
///   board's position from 0, `package` = the rig.
/// - the suite's `<properties>`: run and board identity, attachments, bench time on the virtual farm, and the
///   measured numbers named `<metric>.<statistic>` (see `JUnitWriter+Properties.swift`). The schema allows no
///   `<properties>` inside `<testcase>`; each check lists its own numbers in its `<system-out>`.
/// - one `<testcase classname="<board>.<suite>" name=check time>` per check that applies to the board (checks
///   that do not apply are left out, so every run of a rig has the same testcases; planned checks that were not
///   run are `<skipped>` with why). `time` is wall-clock seconds (the virtual farm's bench time is in the
///   check's `<system-out>`). Children, in Surefire's order: `<failure>`, `<rerunFailure>`s, `<flakyFailure>`s,
///   `<skipped>`, `<error>`, `<rerunError>`s, `<flakyError>`s, `<system-out>`. A non-pass's `type` is its
///   ``FailureClass`` (`test`, `board`, `infrastructure`; `interrupted` for a check stopped with the run) and its
///   message starts with the class (`infrastructure failure: esp-01 ota.clean update: ...`). Earlier attempts of
///   a retried check are Surefire's `flakyFailure`/`flakyError` when the last attempt passed, and
///   `rerunFailure`/`rerunError` when every attempt failed, each with its message, `<stackTrace>` (the details)
///   and `<system-out>` (when and how long it ran); see `JUnitWriter+Attempts.swift`. A check that failed, erred
///   or was interrupted also carries in its `<system-out>` the board's timeline while it ran (its last
///   ``excerptLimit`` entries): GitLab shows a testcase's system-out, not its suite's.
/// - the suite's `<system-out>`: the board's log lines and state transitions on the rig clock, the state it
///   finished in, its board-level numbers with their definitions, then `[[ATTACHMENT|path]]` lines for its
///   capture and console (GitLab and the Jenkins junit-attachments plugin link them); `<system-err>`: the
///   warnings and errors among the log lines.
/// - a `bench` testsuite with the testcases `open` and `run`: an `<error type="infrastructure">` when the bench did
///   not open, when it failed during the run, or when no board was tested, so that every CI reporter shows such a
///   run red (see `JUnitWriter+Bench.swift`).
/// - a timeline folded with a limit (``RunResultBuilder/init(timelineLimit:)``): system-out has one line
///   `… 12345 timeline entries elided; the full log is in run.jsonl` where entries were left out, and
///   system-err one line `… 37 warning or error lines elided; ...` in the same place.
/// - a run stopped early (``RunResult/interruption``): every suite says it, as the property `run.interrupted` and
///   as the first line of its `<system-err>`, `run interrupted: <reason>`.
public struct JUnitWriter: Sendable {
    public init() {}

    /// The JUnit document for a folded run, with a `gates` testsuite when `gates` has verdicts
    /// (`JUnitWriter+Gates.swift`).
    public func render(_ result: RunResult, gates: [GateVerdict] = []) -> String {
        guard !gates.isEmpty else { return document(result, extraSuites: []) }
        let suite = ExtraSuite(counts: Self.counts(of: gates)) { xml in
            gatesSuite(gates, index: result.boards.count + 1, run: result, into: &xml)
        }
        return document(result, extraSuites: [suite])
    }

    /// The JUnit document for a recorded log.
    public func render(_ log: RunLog) -> String {
        render(RunResult(log))
    }

    /// Writes the document to `url` atomically (a reader never sees half a file).
    public func write(_ result: RunResult, to url: URL) throws {
        try Data(render(result).utf8).write(to: url, options: .atomic)
    }

    /// A testsuite that is neither a board's nor the bench's, written after them and counted in `<testsuites>`
    /// (the gates suite is one).
    struct ExtraSuite {
        var counts: TestCounts
        var write: (inout XMLWriter) -> Void
    }

    /// The document: the boards' suites, the bench's, then `extraSuites`.
    func document(_ result: RunResult, extraSuites: [ExtraSuite]) -> String {
        var xml = XMLWriter()
        let bench = BenchChecks(result)
        let counts = extraSuites.reduce(result.counts + bench.counts) { $0 + $1.counts }
        xml.start(
            "testsuites",
            [
                ("name", result.run?.rig ?? "blerig"), ("tests", String(counts.tests)),
                ("failures", String(counts.failed)), ("errors", String(counts.errors)),
                ("time", result.finished.map { NumberText.seconds3($0.wallDuration) }),
            ])
        // Each board's suite is written on its own, side by side (a run of a thousand boards), then in order.
        let suites = Array(result.boards.enumerated()).concurrentMap { index, board in
            var fragment = XMLWriter(fragmentAtDepth: 1)
            suite(board, index: index, run: result, into: &fragment)
            return fragment.output
        }
        for fragment in suites { xml.append(fragment) }
        Self.benchSuite(bench, index: result.boards.count, run: result, into: &xml)
        for extra in extraSuites { extra.write(&xml) }
        xml.end()
        return xml.output
    }

    private func suite(_ board: BoardResult, index: Int, run result: RunResult, into xml: inout XMLWriter) {
        let counts = board.counts
        let wall = board.tests.reduce(Duration.zero) { $0 + Self.wallTime($1, run: result) }
        xml.start(
            "testsuite",
            [
                ("name", board.id), ("tests", String(counts.tests)), ("failures", String(counts.failed)),
                ("errors", String(counts.errors)), ("skipped", String(counts.skipped)),
                ("time", NumberText.seconds3(wall)),
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
            testCase(test, board: board, run: result, into: &xml)
        }
        xml.element("system-out", text: Self.systemOut(board))
        let warnings = Self.systemErr(board, run: result)
        if !warnings.isEmpty { xml.element("system-err", text: warnings) }
        xml.end()
    }

    private func testCase(
        _ test: TestResult, board: BoardResult, run result: RunResult, into xml: inout XMLWriter
    ) {
        let attributes: XMLWriter.Attributes = [
            ("name", test.name), ("classname", "\(test.board).\(test.suite)"),
            ("time", NumberText.seconds3(Self.wallTime(test, run: result))),
        ]
        var out = Self.measurementListing(test.measurements)
        if result.isVirtual, !test.outcome.isSkip {
            out += "bench time \(NumberText.seconds3(test.duration)) s (virtual farm)\n"
        }
        if test.outcome.isNonPass { out += Self.timelineExcerpt(board, during: test) }
        let attempts = Self.attemptElements(test)
        if case .passed = test.outcome, out.isEmpty, attempts.isEmpty {
            xml.empty("testcase", attributes)
            return
        }
        xml.start("testcase", attributes)
        if case .failed(_, let details) = test.outcome {
            xml.element("failure", [("message", Self.message(test)), ("type", Self.type(test))], text: details)
        }
        for attempt in attempts where attempt.name.hasSuffix("Failure") { attempt.write(into: &xml) }
        switch test.outcome {
        case .passed, .failed: break
        case .skipped(let reason):
            xml.empty("skipped", [("message", reason)])
        case .error(_, let details):
            xml.element("error", [("message", Self.message(test)), ("type", Self.type(test))], text: details)
        case .interrupted:
            xml.element(
                "error", [("message", Self.message(test)), ("type", Self.type(test))],
                text: Self.interruptedDetails(test))
        }
        for attempt in attempts where attempt.name.hasSuffix("Error") { attempt.write(into: &xml) }
        if !out.isEmpty { xml.element("system-out", text: out) }
        xml.end()
    }

    /// The wall-clock time a check took, every attempt included. A log from before wall time was recorded has
    /// only rig time: on hardware that is wall time; on the virtual farm it is not, and the check counts as 0.
    static func wallTime(_ test: TestResult, run result: RunResult) -> Duration {
        func one(_ wall: Duration?, _ rig: Duration) -> Duration { wall ?? (result.isVirtual ? .zero : rig) }
        return test.earlierAttempts.reduce(one(test.wallDuration, test.duration)) {
            $0 + one($1.wallDuration, $1.duration)
        }
    }

    /// The `type` of a non-pass: its class; for one without a class, `test` for a failure, `interrupted` for an
    /// interrupted check, `error` for an error.
    static func type(_ outcome: TestOutcome, _ failureClass: FailureClass?) -> String {
        if let failureClass { return failureClass.rawValue }
        switch outcome {
        case .failed: return FailureClass.test.rawValue
        case .interrupted: return "interrupted"
        default: return "error"
        }
    }

    static func type(_ test: TestResult) -> String { type(test.outcome, test.failureClass) }

    /// What a non-pass's message starts with: `<class> failure: ` for a class, `error: ` or `interrupted: `.
    static func prefix(_ type: String) -> String {
        FailureClass(rawValue: type) != nil ? "\(type) failure: " : "\(type): "
    }

    /// `<class> failure: <board> <suite>.<check>: <message>`; `error: …` for an error without a class;
    /// `interrupted: <reason>` for an interrupted check without a class.
    static func message(_ test: TestResult) -> String? {
        if case .interrupted(let reason) = test.outcome, test.failureClass == nil { return "interrupted: \(reason)" }
        guard let headline = test.headline else { return nil }
        return "\(prefix(type(test)))\(headline)"
    }

    /// The text of an interrupted check's `<error>`: the message names only the reason, so this says which
    /// check it was and where to look.
    static func interruptedDetails(_ test: TestResult) -> String {
        "\(test.board) \(test.suite).\(test.name) started at \(NumberText.rigTime(test.started)) and was stopped "
            + "before it reached a verdict. Its system-out and the suite's show how far it got."
    }
}

extension TestOutcome {
    var isSkip: Bool {
        if case .skipped = self { return true }
        return false
    }
}

extension RunResult {
    /// A run on the virtual farm (it has a seed), where rig time is bench time, not wall time.
    var isVirtual: Bool { run?.seed != nil }
}
