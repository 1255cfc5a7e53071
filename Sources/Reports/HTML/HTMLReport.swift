import Foundation

/// `report.html`: one self-contained page (inline CSS and SVG; no script, font, image or link to fetch) that a
/// person would rather look at than read:
///
/// - the verdict, counts per board and failure classes (a bar chart), the checks that did not pass with their
///   class, and the flaky ones;
/// - latency distributions per board: for each latency metric (milliseconds), one empirical CDF per board from
///   the check's raw samples, or, for a board without samples, its percentiles (p50, p95, p99, max) as points;
/// - OTA throughput over the transfer: from throughput samples taken along the transfer when a check recorded
///   them, otherwise each OTA check's throughput as a bar, with the link's unacknowledged capacity;
/// - link drops by HCI reason (`link.drop_rate` broken down as `reason_0x08`, ...);
/// - trends over the last runs from history (``MetricTrend``), with the baseline run marked;
/// - the gates and the change against the baseline.
///
/// Every board-supplied string is escaped (``HTMLText``).
public struct HTMLReport: Sendable {
    public init() {}

    public func render(_ result: RunResult, inputs: ReportInputs = ReportInputs()) -> String {
        let title = "blerig " + (result.run?.runID ?? "run")
        var body = header(result)
        body += section("Failure classes", classes(result))
        body += section("Latency distributions", latency(result))
        body += section("OTA throughput", ota(result))
        body += section("Link drops by HCI reason", drops(result))
        body += section("Trends over the last runs", trends(inputs.trends))
        body += section("Gates", gates(inputs.gates))
        body += section("Against the baseline", baseline(result, inputs.baseline))
        return """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(HTMLText.escaped(title))</title>
            <style>\(Self.style)</style></head>
            <body>\(body)</body></html>

            """
    }

    static let style = """
        body{font-family:system-ui,sans-serif;margin:24px;color:#222;max-width:1340px}
        h1{font-size:22px}h2{font-size:17px;margin-top:28px;border-bottom:1px solid #ddd}
        table{border-collapse:collapse;font-size:13px;margin:8px 0}
        td,th{border:1px solid #ddd;padding:3px 8px;text-align:left;vertical-align:top}
        td.n{text-align:right}.pass{color:#1a7f37}.fail{color:#cf222e;font-weight:bold}
        .charts{display:flex;flex-wrap:wrap;gap:12px}svg.chart{border:1px solid #eee;background:#fff}
        .note{color:#555;font-size:13px}
        """

    private func section(_ title: String, _ content: String) -> String {
        "<section><h2>\(HTMLText.escaped(title))</h2>\(content)</section>\n"
    }

    private func header(_ result: RunResult) -> String {
        let counts = result.counts
        let bench = BenchChecks(result).checks.filter { $0.outcome.isNonPass }
        let passed = counts.failed + counts.errors + bench.count == 0
        var html = "<h1>\(HTMLText.escaped(result.run?.runID ?? "blerig run")): "
        html += passed ? "<span class=\"pass\">passed</span>" : "<span class=\"fail\">not passed</span>"
        html += "</h1><p class=\"note\">"
        if let run = result.run {
            html += "rig \(HTMLText.escaped(run.rig)) (\(HTMLText.escaped(run.rigFile))), radio "
                + "\(HTMLText.escaped(run.radio)), host \(HTMLText.escaped(run.host)), started "
                + "\(NumberText.timestamp(run.wallStart))Z"
            if let seed = run.seed { html += ", seed \(seed)" }
        }
        if let finished = result.finished {
            html += "; \(NumberText.seconds3(finished.wallDuration)) s wall, "
                + "\(NumberText.seconds3(finished.at.sinceOrigin)) s bench time"
        }
        if let interruption = result.interruption { html += "; <b>interrupted: \(HTMLText.escaped(interruption))</b>" }
        html += "</p>"
        for check in bench {
            let message: String =
                switch check.outcome {
                case .error(let message, _), .failed(let message, _): message
                case .interrupted(let reason): "interrupted: \(reason)"
                default: ""
                }
            html += "<p class=\"fail\">bench \(HTMLText.escaped(check.name)): \(HTMLText.escaped(message))</p>"
        }
        html += "<table><tr><th>board</th><th>profile</th><th>passed</th><th>failed</th><th>errors</th>"
            + "<th>skipped</th><th>flaky</th><th>not applicable</th></tr>"
        for board in result.boards {
            let c = board.counts
            html += "<tr><td>\(HTMLText.escaped(board.id))</td><td>\(HTMLText.escaped(board.profile ?? "-"))</td>"
            for number in [c.passed, c.failed, c.errors, c.skipped, board.tests.filter(\.isFlaky).count,
                board.notApplicable.count]
            {
                html += "<td class=\"n\">\(number)</td>"
            }
            html += "</tr>"
        }
        return html + "</table>"
    }

    private func classes(_ result: RunResult) -> String {
        let tests = result.boards.flatMap(\.tests)
        let labels = FailureClass.allCases.map(\.rawValue) + ["interrupted", "unclassified"]
        let bars = labels.map { label in (label, Double(tests.filter { $0.classLabel == label }.count)) }
        var html = "<div class=\"charts\">"
        html += SVGChart.bars(title: "Checks not passed, by class", unit: "checks", bars: bars.map { ($0.0, $0.1) })
        html += "</div>"
        let failing = tests.filter { $0.outcome.isNonPass }
        if failing.isEmpty {
            html += "<p class=\"note\">Every check passed or was skipped.</p>"
        } else {
            html += "<table><tr><th>class</th><th>board</th><th>check</th><th>attempts</th><th>message</th></tr>"
            for test in failing.prefix(500) {
                html += "<tr><td>\(HTMLText.escaped(test.classLabel ?? "?"))</td>"
                    + "<td>\(HTMLText.escaped(test.board))</td>"
                    + "<td>\(HTMLText.escaped("\(test.suite) / \(test.name)"))</td><td class=\"n\">\(test.attempt)</td>"
                    + "<td>\(HTMLText.escaped(test.headline ?? ""))</td></tr>"
            }
            html += "</table>"
            if failing.count > 500 { html += "<p class=\"note\">… \(failing.count - 500) more in junit.xml.</p>" }
        }
        let flaky = tests.filter(\.isFlaky)
        html += "<h3>Flaky checks</h3>"
        if flaky.isEmpty {
            html += "<p class=\"note\">No check needed a second attempt to pass.</p>"
        } else {
            html += "<table><tr><th>board</th><th>check</th><th>passed on attempt</th><th>earlier attempts</th></tr>"
            for test in flaky {
                let earlier = test.earlierAttempts.map { attempt -> String in
                    let type = JUnitWriter.type(attempt.outcome, attempt.failureClass)
                    switch attempt.outcome {
                    case .failed(let message, _), .error(let message, _): return "\(type): \(message)"
                    case .interrupted(let reason): return "interrupted: \(reason)"
                    case .passed: return "passed"
                    case .skipped(let reason): return "skipped: \(reason)"
                    }
                }
                html += "<tr><td>\(HTMLText.escaped(test.board))</td>"
                    + "<td>\(HTMLText.escaped("\(test.suite) / \(test.name)"))</td><td class=\"n\">\(test.attempt)</td>"
                    + "<td>\(earlier.map(HTMLText.escaped).joined(separator: "<br>"))</td></tr>"
            }
            html += "</table>"
        }
        return html
    }
}
