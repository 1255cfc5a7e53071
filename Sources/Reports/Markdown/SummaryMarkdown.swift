/// `summary.md`: the run in a few lines of Markdown, small enough for a pull-request comment (GitHub's limit is
/// 65,536 characters; this stays near a few kilobytes) and no line wider than 100 columns:
///
/// - a headline: the run id, the rig, and `PASSED` or what did not pass;
/// - a table of counts per board (passed, failed, errors, skipped, flaky) and the total;
/// - the non-passes by class (test, board, infrastructure, interrupted, unclassified);
/// - each check that did not pass, with its class and message (at most ``maxListed``, then how many more);
/// - flaky checks: passed on a later attempt, with what the earlier attempts said;
/// - the gates table, one row per ``GateVerdict``;
/// - the change against the baseline: every number the run shares with it, the largest relative changes first
///   (at most ``maxListed`` rows).
///
/// Board-supplied text (board ids, messages) is escaped, so a message cannot inject Markdown or HTML.
public struct SummaryMarkdown: Sendable {
    /// The widest line.
    public static let width = 100
    /// The most failures, flaky checks and baseline rows listed.
    public static let maxListed = 20

    public init() {}

    public func render(_ result: RunResult, inputs: ReportInputs = ReportInputs()) -> String {
        var lines: [String] = []
        let counts = result.counts
        let bench = BenchChecks(result)
        let benchProblems = bench.checks.filter { $0.outcome.isNonPass }
        let notPassed = counts.failed + counts.errors + benchProblems.count
        let breached = inputs.gates.filter { $0.decision == .breached }.count
        let verdict =
            notPassed == 0 && breached == 0
            ? "PASSED" : "FAILED: \(notPassed) not passed" + (breached > 0 ? ", \(breached) gate(s) breached" : "")
        let run = result.run.map { MarkdownText.escaped($0.runID) } ?? "(no runStarted in the log)"
        lines += MarkdownText.wrapped(
            "## blerig \(run): **\(verdict)**", width: Self.width)
        if let rig = result.run?.rig {
            var about = "Rig \(MarkdownText.escaped(rig)), radio \(MarkdownText.escaped(result.run?.radio ?? "?"))"
            if let seed = result.run?.seed { about += ", seed \(seed)" }
            if let wall = result.finished?.wallDuration { about += ", \(NumberText.seconds3(wall)) s wall" }
            lines += MarkdownText.wrapped(about + ".", width: Self.width)
        }
        if let interruption = result.interruption {
            lines += MarkdownText.wrapped(
                "**Interrupted:** \(MarkdownText.escaped(interruption))", width: Self.width)
        }
        for check in benchProblems {
            let message: String =
                switch check.outcome {
                case .error(let message, _), .failed(let message, _): message
                case .interrupted(let reason): "interrupted: \(reason)"
                default: ""
                }
            lines += MarkdownText.wrapped("**Bench \(check.name):** \(MarkdownText.escaped(message))", width: Self.width)
        }
        lines.append("")
        lines += countsTable(result)
        lines.append("")
        lines += classLine(result)
        lines += failures(result)
        lines += flaky(result)
        lines += gates(inputs.gates)
        lines += baseline(result, inputs.baseline)
        return lines.map { $0.count > Self.width ? MarkdownText.cut($0, to: Self.width) : $0 }.joined(separator: "\n")
            + "\n"
    }

    private func countsTable(_ result: RunResult) -> [String] {
        var lines = [
            "| board | profile | passed | failed | errors | skipped | flaky |",
            "|---|---|--:|--:|--:|--:|--:|",
        ]
        func cells(_ counts: TestCounts, flaky: Int) -> [String] {
            [counts.passed, counts.failed, counts.errors, counts.skipped, flaky].map(String.init)
        }
        let shown = result.boards.prefix(Self.maxListed * 2)
        for board in shown {
            let row =
                [MarkdownText.escaped(board.id), MarkdownText.escaped(board.profile ?? "-")]
                + cells(board.counts, flaky: board.tests.filter(\.isFlaky).count)
            lines.append(MarkdownText.row(row, width: Self.width, flexible: 0))
        }
        if result.boards.count > shown.count {
            lines.append("| … \(result.boards.count - shown.count) more boards | | | | | | |")
        }
        let flaky = result.boards.reduce(0) { $0 + $1.tests.filter(\.isFlaky).count }
        lines.append(MarkdownText.row(["**total**", ""] + cells(result.counts, flaky: flaky), width: Self.width, flexible: 0))
        return lines
    }

    private func classLine(_ result: RunResult) -> [String] {
        let tests = result.boards.flatMap(\.tests)
        let labels = FailureClass.allCases.map(\.rawValue) + ["interrupted", "unclassified"]
        let parts = labels.compactMap { label -> String? in
            let count = tests.filter { $0.classLabel == label }.count
            return count == 0 && FailureClass(rawValue: label) == nil ? nil : "\(label) \(count)"
        }
        return MarkdownText.wrapped("**Not passed by class:** " + parts.joined(separator: " · "), width: Self.width)
    }

    private func failures(_ result: RunResult) -> [String] {
        let failing = result.boards.flatMap(\.tests).filter { $0.outcome.isNonPass }
        guard !failing.isEmpty else { return [] }
        var lines = ["", "### Not passed", ""]
        for test in failing.prefix(Self.maxListed) {
            let message: String =
                switch test.outcome {
                case .failed(let message, _), .error(let message, _): message
                case .interrupted(let reason): "interrupted: \(reason)"
                default: ""
                }
            let attempts = test.attempt > 1 ? " (attempt \(test.attempt))" : ""
            lines += MarkdownText.wrapped(
                "- **\(test.classLabel ?? "?")** \(MarkdownText.escaped(test.board)) "
                    + "\(MarkdownText.escaped(test.suite)) / \(MarkdownText.escaped(test.name))\(attempts): "
                    + MarkdownText.escaped(message), width: Self.width)
        }
        if failing.count > Self.maxListed {
            lines.append("- … and \(failing.count - Self.maxListed) more: see junit.xml or report.html")
        }
        return lines
    }

    private func flaky(_ result: RunResult) -> [String] {
        let flaky = result.boards.flatMap(\.tests).filter(\.isFlaky)
        guard !flaky.isEmpty else { return [] }
        var lines = ["", "### Flaky (passed on a later attempt)", ""]
        for test in flaky.prefix(Self.maxListed) {
            let earlier = test.earlierAttempts.compactMap { attempt -> String? in
                switch attempt.outcome {
                case .failed(let message, _), .error(let message, _):
                    "\(JUnitWriter.type(attempt.outcome, attempt.failureClass)): \(message)"
                case .interrupted(let reason): "interrupted: \(reason)"
                default: nil
                }
            }
            lines += MarkdownText.wrapped(
                "- \(MarkdownText.escaped(test.board)) \(MarkdownText.escaped(test.suite)) / "
                    + "\(MarkdownText.escaped(test.name)): passed on attempt \(test.attempt); before: "
                    + MarkdownText.escaped(earlier.joined(separator: "; ")), width: Self.width)
        }
        if flaky.count > Self.maxListed { lines.append("- … and \(flaky.count - Self.maxListed) more") }
        return lines
    }

    private func gates(_ verdicts: [GateVerdict]) -> [String] {
        guard !verdicts.isEmpty else { return [] }
        var lines = ["", "### Gates", "", "| gate | scope | verdict | measured | baseline |", "|---|---|---|--:|--:|"]
        for verdict in verdicts {
            let decision = verdict.decision == .breached ? "**breached**" : verdict.decision.rawValue
            let row = [
                MarkdownText.escaped(verdict.gate), MarkdownText.escaped(verdict.scope), decision,
                verdict.measured.map { NumberText.significant($0) } ?? "-",
                verdict.baseline.map { NumberText.significant($0) } ?? "-",
            ]
            lines.append(MarkdownText.row(row, width: Self.width, flexible: 0))
        }
        return lines
    }

    private func baseline(_ result: RunResult, _ baseline: Baseline?) -> [String] {
        guard let baseline else { return [] }
        var current: [Baseline.Key: Double] = [:]
        for board in result.boards {
            for value in board.measurements + board.tests.flatMap(\.measurements) {
                let key = Baseline.Key(board: board.id, metric: value.metric, statistic: value.statistic)
                if current[key] == nil { current[key] = value.value }
            }
        }
        let rows = baseline.values.compactMap { key, old -> (Baseline.Key, Double, Double, Double?)? in
            guard let now = current[key] else { return nil }
            return (key, old, now, old != 0 ? (now - old) / abs(old) : nil)
        }.sorted { a, b in
            let (x, y) = (abs(a.3 ?? .infinity), abs(b.3 ?? .infinity))
            return x != y ? x > y : a.0 < b.0
        }
        let from = baseline.runID.map { " (run \(MarkdownText.escaped($0)))" } ?? ""
        var lines = ["", "### Against baseline \(MarkdownText.escaped(baseline.name))\(from)", ""]
        guard !rows.isEmpty else {
            lines.append("No number of this run is in the baseline.")
            return lines
        }
        lines += ["| board | metric | baseline | now | change |", "|---|---|--:|--:|--:|"]
        for (key, old, now, change) in rows.prefix(Self.maxListed) {
            let changeText = change.map { (($0 >= 0 ? "+" : "") + NumberText.significant($0 * 100, digits: 3) + " %") }
            let row = [
                MarkdownText.escaped(key.board), MarkdownText.escaped("\(key.metric).\(key.statistic)"),
                NumberText.significant(old), NumberText.significant(now), changeText ?? "n/a",
            ]
            lines.append(MarkdownText.row(row, width: Self.width, flexible: 1))
        }
        if rows.count > Self.maxListed {
            lines.append("")
            lines.append("… \(rows.count - Self.maxListed) more numbers changed less; report.html has them all.")
        }
        return lines
    }
}
