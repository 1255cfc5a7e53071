extension RunResult {
    /// A plain-text table for the terminal, one row per board and a total:
    ///
    /// ```
    /// board  | profile   | passed | failed | errors | skipped | key numbers
    /// -------+-----------+--------+--------+--------+---------+----------------------------------
    /// esp-01 | esp-point |      5 |      0 |      0 |       1 | handshake.ready_ms p95 80.2 ms
    /// esp-02 | esp-point |      4 |      1 |      0 |       0 | handshake.ready_ms p95 212.4 ms
    /// -------+-----------+--------+--------+--------+---------+----------------------------------
    /// total  |           |      9 |      1 |      0 |       1 |
    /// ```
    ///
    /// When a check was interrupted, an `interrupted` column follows `errors`. It counts the part of `errors`
    /// that was interrupted (the same split as ``TestCounts``), so `passed + failed + errors + skipped` is still
    /// every check; a run with no interrupted check keeps the table above unchanged.
    ///
    /// Key numbers: for each metric the board measured (the first check that measured it wins), the first of
    /// `keyStatistics` that was measured, else the first statistic there is. `metrics` restricts and orders the
    /// metrics shown; nil shows all its checks' metrics in the order they were first measured. A board-level
    /// number (``BoardResult/measurements``, such as `schedule.link_wait_ms`) is shown only when `metrics` names
    /// it and no check of the board measured a metric of that name. Columns are aligned by character count (wide
    /// East Asian characters are not accounted for); control characters are made visible.
    ///
    /// No line is wider than `width` (100 columns by default) unless the other columns alone are: the key numbers
    /// wrap inside their column, onto rows whose other cells are empty.
    public func summaryTable(
        keyStatistics: [Statistic] = [.p95, .value], metrics: [String]? = nil, width: Int = 100
    ) -> String {
        let total = counts
        let showsInterrupted = total.interrupted > 0
        func countCells(_ counts: TestCounts) -> [Int] {
            [counts.passed, counts.failed, counts.errors] + (showsInterrupted ? [counts.interrupted] : [])
                + [counts.skipped]
        }
        let countNames = ["passed", "failed", "errors"] + (showsInterrupted ? ["interrupted"] : []) + ["skipped"]
        let header = ["board", "profile"] + countNames + ["key numbers"]
        let rows = boards.map { board in
            ([board.id, board.profile ?? "-"] + countCells(board.counts).map(String.init)
                + [Self.keyNumbers(board, keyStatistics: keyStatistics, metrics: metrics).joined(separator: ", ")])
                .map(VisibleText.singleLine)
        }
        let totalRow = ["total", ""] + countCells(total).map(String.init) + [""]
        var widths = (0..<header.count).map { column in
            ([header, totalRow] + rows).map { $0[column].count }.max() ?? 0
        }
        let last = header.count - 1
        let fixed = widths.dropLast().reduce(0, +) + 3 * last
        widths[last] = min(widths[last], max(header[last].count, width - fixed))
        let wrappedRows = rows.flatMap { row -> [[String]] in
            let lines = Self.wrap(row[last], width: widths[last])
            return lines.enumerated().map { index, line in
                index == 0 ? Array(row.dropLast()) + [line] : Array(repeating: "", count: last) + [line]
            }
        }
        let numeric = Set(2..<(2 + countNames.count))
        func line(_ cells: [String]) -> String {
            let padded = cells.enumerated().map { column, cell in
                // A wrapped cell may still be wider than its column (one key number longer than the column).
                let fill = String(repeating: " ", count: max(0, widths[column] - cell.count))
                return numeric.contains(column) ? fill + cell : cell + fill
            }
            var text = padded.joined(separator: " | ")
            while text.hasSuffix(" ") { text.removeLast() }
            return text + "\n"
        }
        let rule = widths.map { String(repeating: "-", count: $0) }.joined(separator: "-+-") + "\n"
        return line(header) + rule + wrappedRows.map(line).joined() + rule + line(totalRow)
    }

    /// `text` broken after `, ` (or where it must) into lines of at most `width` characters.
    static func wrap(_ text: String, width: Int) -> [String] {
        guard text.count > width, width > 0 else { return [text] }
        var lines: [String] = []
        var line = ""
        for part in text.components(separatedBy: ", ") {
            let piece = line.isEmpty ? part : line + ", " + part
            if piece.count + 1 <= width || line.isEmpty {
                line = piece
            } else {
                lines.append(line + ",")
                line = part
            }
            while line.count > width {
                lines.append(String(line.prefix(width)))
                line = String(line.dropFirst(width))
            }
        }
        if !line.isEmpty { lines.append(line) }
        return lines
    }

    /// The key numbers of one board, e.g. `["handshake.connect_ms p95 12.5 ms", "ota.throughput_kBps value 41 kB/s"]`.
    static func keyNumbers(_ board: BoardResult, keyStatistics: [Statistic], metrics: [String]?) -> [String] {
        let groups = MeasuredValue.groupedByMetric(firstMeasurementPerMetric(board))
        let chosen: [(metric: String, values: [MeasuredValue])]
        if let metrics {
            let boardGroups = MeasuredValue.groupedByMetric(board.measurements)
            chosen = metrics.compactMap { metric in
                groups.first { $0.metric == metric } ?? boardGroups.first { $0.metric == metric }
            }
        } else {
            chosen = groups
        }
        return chosen.map { group in
            let pick =
                keyStatistics.lazy.compactMap { statistic in
                    group.values.first { $0.statistic == statistic }
                }.first ?? group.values[0]
            return "\(pick.metric) \(pick.reading)"
        }
    }

    /// The board's measurements, keeping for each metric only those of the first check that measured it.
    private static func firstMeasurementPerMetric(_ board: BoardResult) -> [MeasuredValue] {
        var owner: [String: Int] = [:]
        var values: [MeasuredValue] = []
        for (index, test) in board.tests.enumerated() {
            for value in test.measurements where owner[value.metric, default: index] == index {
                owner[value.metric] = index
                values.append(value)
            }
        }
        return values
    }
}
