import Foundation

/// What the history commands print: plain lines of at most 100 columns.
public enum HistoryText {
    /// `blerig history`: one line per run, newest first.
    public static func runs(_ runs: [RunRecord], baselines: [BaselineRecord] = []) -> [String] {
        guard !runs.isEmpty else { return ["no runs in history"] }
        let names = Dictionary(grouping: baselines, by: \.runID).mapValues { $0.map(\.name).sorted() }
        var lines = [
            "run id                                     started (UTC)        status   pass/fail/err/skip  host"
        ]
        for run in runs {
            let counts = "\(run.passed)/\(run.failed)/\(run.errors)/\(run.skipped)"
            var line =
                pad(run.runID, 42) + " " + pad(stamp(run.started), 20) + " " + pad(run.status, 8) + " "
                + pad(counts, 19) + " " + run.host
            if let names = names[run.runID] { line += "  [baseline \(names.joined(separator: ", "))]" }
            lines.append(line)
            var detail = "  rig \(run.rig) (\(run.rigFile)"
            if let sha = run.rigSHA256 { detail += ", sha256 \(sha.prefix(12))" }
            if let revision = run.rigRevision { detail += ", git \(revision.prefix(12))" }
            detail += "), \(run.boards) board\(run.boards == 1 ? "" : "s")"
            if let interruption = run.interruption { detail += "; stopped: \(interruption)" }
            lines.append(String(detail.prefix(100)))
        }
        return lines
    }

    /// `blerig compare A B`: per board, check and metric, both values and the change, and the verdict.
    public static func comparison(_ comparison: RunComparison) -> [String] {
        var lines = [
            "A: \(comparison.a.runID) (\(stamp(comparison.a.started)), \(comparison.a.host))",
            "B: \(comparison.b.runID) (\(stamp(comparison.b.started)), \(comparison.b.host))",
        ]
        guard !comparison.metrics.isEmpty else { return lines + ["no metric values to compare"] }
        var board = ""
        for metric in comparison.metrics {
            if metric.board != board {
                board = metric.board
                lines.append("")
                lines.append("board \(board)")
            }
            let unit = metric.unit.isEmpty ? "" : " (\(metric.unit))"
            let check = metric.check.isEmpty ? "board" : metric.check
            lines.append("  \(metric.metric)\(unit) in \(check)")
            for statistic in metric.statistics {
                lines.append(
                    "    " + pad(statistic.statistic, 6) + leftPad(number(statistic.a), 14) + " → "
                        + leftPad(number(statistic.b), 14) + "  " + change(statistic))
            }
            let samples = "samples \(metric.samplesA) → \(metric.samplesB)"
            // VERDICT HOOK: filled in by the Gates target's statistical test (see ChangeJudge).
            lines.append(
                "    \(samples); verdict: \(metric.verdict ?? "not judged (the statistical test comes with gates)")")
        }
        return lines
    }

    /// `blerig leases`: one line per lease.
    public static func leases(_ leases: [LeaseRecord], now: Date) -> [String] {
        guard !leases.isEmpty else { return ["no leases"] }
        return leases.map { lease in
            let left = lease.expiresAt.timeIntervalSince(now)
            let state =
                left > 0
                ? "expires in \(DatabaseLeasing.seconds(left))"
                : "EXPIRED \(DatabaseLeasing.seconds(-left)) ago (free to take over)"
            return "\(lease.resource) (board \(lease.board)): held by \(lease.owner) since "
                + "\(stamp(lease.acquiredAt)), "
                + "renewed \(DatabaseLeasing.seconds(now.timeIntervalSince(lease.renewedAt))) "
                + "ago, \(state)"
        }
    }

    static func change(_ statistic: RunComparison.StatisticComparison) -> String {
        guard let change = statistic.change else { return "" }
        let sign = change > 0 ? "+" : ""
        let relative =
            statistic.relativeChange.map { String(format: " (%@%.1f %%)", $0 > 0 ? "+" : "", $0 * 100) } ?? ""
        return "\(sign)\(number(change))\(relative)"
    }

    static func number(_ value: Double?) -> String {
        guard let value else { return "-" }
        guard value.isFinite else { return "\(value)" }
        if value == value.rounded(), abs(value) < 1e12 { return String(Int64(value)) }
        return String(format: abs(value) >= 100 ? "%.1f" : abs(value) >= 1 ? "%.3f" : "%.4g", value)
    }

    static func stamp(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        return String(
            format: "%04d-%02d-%02d %02d:%02d:%02d", c.year ?? 0, c.month ?? 0, c.day ?? 0, c.hour ?? 0, c.minute ?? 0,
            c.second ?? 0)
    }

    static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }

    static func leftPad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : String(repeating: " ", count: width - text.count) + text
    }
}
