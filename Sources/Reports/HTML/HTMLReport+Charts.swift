extension HTMLReport {
    /// The most boards drawn in one chart, and the most charts per metric.
    static let boardsPerChart = 8
    static let chartsPerMetric = 4
    /// The most points an empirical CDF is drawn with (evenly spaced ranks).
    static let cdfPoints = 200

    func latency(_ result: RunResult) -> String {
        var metrics: [String] = []
        for board in result.boards {
            for test in board.tests {
                for value in test.measurements where value.unit == .milliseconds && !metrics.contains(value.metric) {
                    metrics.append(value.metric)
                }
            }
        }
        guard !metrics.isEmpty else { return "<p class=\"note\">No latency (milliseconds) was measured.</p>" }
        var html = "<p class=\"note\">Empirical CDF of each board's raw samples; a board without samples shows its "
            + "percentiles as points (p50 at 0.5, p95 at 0.95, p99 at 0.99, max at 1).</p><div class=\"charts\">"
        for metric in metrics {
            var series: [SVGChart.Series] = []
            for board in result.boards {
                let tests = board.tests.filter { $0.measurements.contains { $0.metric == metric } }
                let samples = tests.flatMap { $0.samples.filter { $0.metric == metric }.flatMap(\.values) }
                if !samples.isEmpty {
                    series.append(SVGChart.Series(name: board.id, points: Self.cdf(samples), steps: true))
                    continue
                }
                guard let test = tests.first else { continue }
                let quantiles: [(Statistic, Double)] = [(.min, 0), (.p50, 0.5), (.p95, 0.95), (.p99, 0.99), (.max, 1)]
                let points = quantiles.compactMap { statistic, fraction -> (x: Double, y: Double)? in
                    test.measurements.first { $0.metric == metric && $0.statistic == statistic }.map { ($0.value, fraction) }
                }
                if !points.isEmpty {
                    series.append(SVGChart.Series(name: board.id + " (percentiles)", points: points, markers: true))
                }
            }
            let groups = stride(from: 0, to: series.count, by: Self.boardsPerChart).map {
                Array(series[$0..<min($0 + Self.boardsPerChart, series.count)])
            }
            for (index, group) in groups.prefix(Self.chartsPerMetric).enumerated() {
                let part = groups.count > 1 ? " (\(index + 1) of \(groups.count))" : ""
                html += SVGChart.lines(
                    title: "\(metric)\(part)", xLabel: "ms", yLabel: "fraction of samples ≤ x", series: group,
                    yRange: 0...1)
            }
            if groups.count > Self.chartsPerMetric {
                let left = series.count - Self.chartsPerMetric * Self.boardsPerChart
                html += "<p class=\"note\">\(HTMLText.escaped(metric)): \(left) more boards not drawn.</p>"
            }
        }
        return html + "</div>"
    }

    /// At most ``cdfPoints`` points of the empirical CDF of `values`: (value, fraction of values ≤ it).
    static func cdf(_ values: [Double]) -> [(x: Double, y: Double)] {
        let sorted = values.filter(\.isFinite).sorted()
        guard !sorted.isEmpty else { return [] }
        let count = sorted.count
        let ranks = count <= cdfPoints ? Array(0..<count) : (0..<cdfPoints).map { $0 * (count - 1) / (cdfPoints - 1) }
        return ranks.map { (sorted[$0], Double($0 + 1) / Double(count)) }
    }

    func ota(_ result: RunResult) -> String {
        var along: [SVGChart.Series] = []
        var bars: [(label: String, value: Double)] = []
        var capacity: Double?
        for board in result.boards {
            for test in board.tests {
                guard let throughput = test.measurements.first(where: { $0.metric == "ota.throughput_kBps" }) else {
                    continue
                }
                let samples = test.samples.filter { $0.metric == "ota.throughput_kBps" }.flatMap(\.values)
                if samples.count >= 2 {
                    let points = samples.enumerated().map { (Double($0.offset) / Double(samples.count - 1) * 100, $0.element) }
                    along.append(SVGChart.Series(name: "\(board.id) \(test.name)", points: points))
                }
                bars.append(("\(board.id) · \(test.name)", throughput.value))
                if capacity == nil,
                    let efficiency = test.measurements.first(where: { $0.metric == "ota.efficiency" })?.value,
                    efficiency > 0
                {
                    capacity = throughput.value / efficiency
                }
            }
        }
        guard !bars.isEmpty else { return "<p class=\"note\">No OTA transfer was measured.</p>" }
        let rules = capacity.map { [SVGChart.Rule(y: $0, label: "link capacity \(NumberText.significant($0)) kB/s")] } ?? []
        var html = "<div class=\"charts\">"
        if !along.isEmpty {
            for start in stride(from: 0, to: min(along.count, 32), by: Self.boardsPerChart) {
                html += SVGChart.lines(
                    title: "OTA throughput over the transfer", xLabel: "% of the transfer", yLabel: "kB/s",
                    series: Array(along[start..<min(start + Self.boardsPerChart, along.count)]), rules: rules)
            }
        }
        html += SVGChart.bars(title: "OTA throughput per transfer (ota.throughput_kBps)", unit: "kB/s", bars: Array(bars.prefix(40)))
        html += "</div>"
        if along.isEmpty {
            html += "<p class=\"note\">No check recorded throughput samples along its transfer, so each transfer "
                + "shows its mean throughput" + (capacity.map { "; the link's unacknowledged capacity is "
                + "\(NumberText.significant($0)) kB/s" } ?? "") + ".</p>"
        }
        return html
    }

    func drops(_ result: RunResult) -> String {
        var bars: [(label: String, value: Double)] = []
        var unit = "/h"
        var soak = false
        for board in result.boards {
            for test in board.tests {
                for value in test.measurements where value.metric == "link.drop_rate" {
                    soak = true
                    guard value.statistic.rawValue.hasPrefix("reason_") else { continue }
                    unit = value.unit.rawValue
                    bars.append(("\(board.id) · \(value.statistic.rawValue.dropFirst("reason_".count))", value.value))
                }
            }
        }
        guard soak else { return "<p class=\"note\">No soak check measured link drops.</p>" }
        guard !bars.isEmpty else { return "<p class=\"note\">No unexpected disconnect was recorded.</p>" }
        return "<div class=\"charts\">"
            + SVGChart.bars(title: "Unexpected disconnects per connection-hour, by HCI reason", unit: unit, bars: bars)
            + "</div><p class=\"note\">0x08 supervision timeout, 0x13 remote user terminated, 0x16 local host, "
            + "0x3E failed to be established.</p>"
    }

    func trends(_ trends: [MetricTrend]) -> String {
        let drawn = trends.filter { !$0.points.isEmpty }
        guard !drawn.isEmpty else { return "<p class=\"note\">No earlier runs in the history.</p>" }
        var html = "<div class=\"charts\">"
        for trend in drawn.prefix(48) {
            let points = trend.points.enumerated().map { (Double($0.offset + 1), $0.element.value) }
            let baseline = trend.baselineRunID.flatMap { id in trend.points.first { $0.runID == id } }
            let rules = baseline.map { [SVGChart.Rule(y: $0.value, label: "baseline \($0.runID)")] } ?? []
            let scope = trend.board.map { "\($0) " } ?? ""
            let first = trend.points.first.map { NumberText.timestamp($0.date) } ?? ""
            let last = trend.points.last.map { NumberText.timestamp($0.date) } ?? ""
            html += SVGChart.lines(
                title: "\(scope)\(trend.metric).\(trend.statistic)", xLabel: "run (\(first) … \(last))",
                yLabel: trend.unit.rawValue,
                series: [SVGChart.Series(name: trend.metric, points: points, markers: true)], rules: rules)
        }
        return html + "</div>"
    }

    func gates(_ verdicts: [GateVerdict]) -> String {
        guard !verdicts.isEmpty else { return "<p class=\"note\">No gates were given.</p>" }
        var html = "<table><tr><th>gate</th><th>scope</th><th>kind</th><th>verdict</th><th>measured</th>"
            + "<th>baseline</th><th>why</th></tr>"
        for verdict in verdicts {
            let css = verdict.decision == .breached ? "fail" : verdict.decision == .held ? "pass" : ""
            html += "<tr><td>\(HTMLText.escaped(verdict.gate))</td><td>\(HTMLText.escaped(verdict.scope))</td>"
                + "<td>\(verdict.kind.rawValue)</td><td class=\"\(css)\">\(verdict.decision.rawValue)</td>"
                + "<td class=\"n\">\(verdict.measured.map { NumberText.significant($0) } ?? "-")</td>"
                + "<td class=\"n\">\(verdict.baseline.map { NumberText.significant($0) } ?? "-")</td>"
                + "<td>\(HTMLText.escaped(verdict.message))</td></tr>"
        }
        return html + "</table>"
    }

    func baseline(_ result: RunResult, _ baseline: Baseline?) -> String {
        guard let baseline else { return "<p class=\"note\">No baseline was given.</p>" }
        var html = "<p class=\"note\">Baseline \(HTMLText.escaped(baseline.name))"
            + (baseline.runID.map { " (run \(HTMLText.escaped($0)))" } ?? "") + ".</p>"
        html += "<table><tr><th>board</th><th>metric</th><th>baseline</th><th>now</th><th>change</th></tr>"
        var current: [Baseline.Key: Double] = [:]
        for board in result.boards {
            for value in board.measurements + board.tests.flatMap(\.measurements) {
                let key = Baseline.Key(board: board.id, metric: value.metric, statistic: value.statistic)
                if current[key] == nil { current[key] = value.value }
            }
        }
        for key in baseline.values.keys.sorted() {
            guard let old = baseline.values[key], let now = current[key] else { continue }
            let change = old != 0 ? NumberText.significant((now - old) / abs(old) * 100, digits: 3) + " %" : "n/a"
            html += "<tr><td>\(HTMLText.escaped(key.board))</td>"
                + "<td>\(HTMLText.escaped("\(key.metric).\(key.statistic)"))</td>"
                + "<td class=\"n\">\(NumberText.significant(old))</td><td class=\"n\">\(NumberText.significant(now))</td>"
                + "<td class=\"n\">\(change)</td></tr>"
        }
        return html + "</table>"
    }
}
