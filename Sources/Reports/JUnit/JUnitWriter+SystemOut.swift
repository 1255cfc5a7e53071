/// The text a suite and its test cases carry in `<system-out>` and `<system-err>`: the board's timeline on the
/// rig clock, the state it finished in, its board-level numbers, its attachments, and each check's numbers with
/// their definitions.
///
/// ```
/// [+0.000000s] state    off → booting: power on
/// [+0.412000s] info     console: ESP-IDF v5.1 boot
/// [+1.020000s] warning  central: MTU exchange retried
///     a continuation line of the same message
/// … 12345 timeline entries elided; the full log is in run.jsonl
/// [+29.990000s] state    ready → quarantined: 3 failed connects
/// [+30.000000s] finished in state quarantined
/// schedule.link_wait_ms value 120 ms, max 310 ms, count 4 (check ready to start → a radio link free for it)
/// [[ATTACHMENT|captures/esp-01.btsnoop]]
/// ```
extension JUnitWriter {
    static func systemOut(_ board: BoardResult) -> String {
        var lines = board.timeline.map(timelineLine)
        if board.elidedTimelineEntries > 0 {
            let count = board.elidedTimelineEntries
            lines.insert(
                elisionLine(count, count == 1 ? "timeline entry" : "timeline entries"),
                at: min(board.elisionIndex, lines.count))
        }
        if let state = board.finalState {
            let time = board.finished.map { "[\(NumberText.rigTime($0))] " } ?? ""
            lines.append("\(time)finished in state \(VisibleText.singleLine(state))")
        }
        var text = lines.map { $0 + "\n" }.joined()
        text += measurementListing(board.measurements)
        text += board.attachments.map { "[[ATTACHMENT|\($0.path)]]\n" }.joined()
        return text
    }

    /// `run interrupted: <reason>` when the run was stopped early (every board's suite carries that line: the
    /// schema has no place for it on `<testsuites>`), then the board's kept log lines at `warning` or above. Where
    /// the fold left some of those out, one line says how many, in the same place as system-out's.
    static func systemErr(_ board: BoardResult, run result: RunResult) -> String {
        var lines = result.interruption.map { ["run interrupted: \(VisibleText.singleLine($0))"] } ?? []
        for (index, entry) in board.timeline.enumerated() {
            if index == board.elisionIndex { lines += warningElision(board) }
            if case .log(let line) = entry, line.level >= .warning { lines.append(timelineLine(entry)) }
        }
        if board.elisionIndex >= board.timeline.count { lines += warningElision(board) }
        return lines.map { $0 + "\n" }.joined()
    }

    /// Where the run log has the entries a bounded fold left out.
    static let fullLogName = "run.jsonl"

    /// `… 12345 timeline entries elided; the full log is in run.jsonl`.
    private static func elisionLine(_ count: Int, _ what: String) -> String {
        "… \(count) \(what) elided; the full log is in \(fullLogName)"
    }

    private static func warningElision(_ board: BoardResult) -> [String] {
        let count = board.elidedWarnings
        guard count > 0 else { return [] }
        return [elisionLine(count, count == 1 ? "warning or error line" : "warning or error lines")]
    }

    /// Numbers (a check's, or a board's own), one metric per line with its definition:
    /// `handshake.ready_ms p50 80.25 ms, p95 98.4 ms, count 200 (connect request → ... notifications enabled)`.
    /// The most timeline entries a failed check's system-out repeats from its board's.
    static let excerptLimit = 40

    /// The board's log lines and transitions from `test`'s start to its end on the rig clock, at most the last
    /// ``excerptLimit`` of them, after a line saying what they are (and how many earlier ones the suite's
    /// system-out has); empty when there are none.
    static func timelineExcerpt(_ board: BoardResult, during test: TestResult) -> String {
        let end = test.started.advanced(by: test.duration)
        // The timeline is in time order (``TimelineBuffer``): the window is one slice of it.
        let timeline = board.timeline
        let first = firstIndex(in: timeline) { $0.at >= test.started }
        let last = firstIndex(in: timeline) { $0.at > end }
        let window = timeline[first..<max(first, last)]
        guard !window.isEmpty else { return "" }
        let shown = window.suffix(excerptLimit)
        let earlier = window.count - shown.count
        var text = "board \(VisibleText.singleLine(board.id)) while this check ran"
        text +=
            earlier > 0
            ? " (its last \(shown.count) entries; the \(earlier) before them are in the suite's system-out):\n" : ":\n"
        for entry in shown { text += timelineLine(entry) + "\n" }
        return text
    }

    /// The first index of sorted `entries` where `reached` holds (it holds from there on); the end if nowhere.
    private static func firstIndex(in entries: [TimelineEntry], where reached: (TimelineEntry) -> Bool) -> Int {
        var (low, high) = (0, entries.count)
        while low < high {
            let middle = (low + high) / 2
            if reached(entries[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }

    static func measurementListing(_ values: [MeasuredValue]) -> String {
        MeasuredValue.groupedByMetric(values).map { group in
            let readings = group.values.map { VisibleText.singleLine($0.reading) }.joined(separator: ", ")
            let definition = VisibleText.singleLine(group.values[0].definition)
            return "\(VisibleText.singleLine(group.metric)) \(readings) (\(definition))\n"
        }.joined()
    }

    static func timelineLine(_ entry: TimelineEntry) -> String {
        let time = "[\(NumberText.rigTime(entry.at))]"
        switch entry {
        case .log(let line):
            let level = padded(VisibleText.singleLine(line.level.rawValue))
            return "\(time) \(level) \(VisibleText.singleLine(line.source)): \(continued(line.message))"
        case .transition(let transition):
            let reason = transition.reason.isEmpty ? "" : ": \(continued(transition.reason))"
            let move = VisibleText.singleLine(transition.from) + " → " + VisibleText.singleLine(transition.to)
            return "\(time) \(padded("state")) \(move)\(reason)"
        }
    }

    /// Indents every line after the first (lines end at LF, CR LF or a lone CR), so a multi-line message
    /// cannot pass for timeline entries. Line breaks at the end (consoles send `\r\n`) are dropped.
    private static func continued(_ message: String) -> String {
        // Most messages are one line: nothing to do (CR and LF are ASCII, so never inside a multi-byte scalar).
        guard message.utf8.contains(where: { $0 == 0x0A || $0 == 0x0D }) else { return message }
        var scalars = Substring(message).unicodeScalars
        while let last = scalars.last, last == "\n" || last == "\r" { scalars.removeLast() }
        var text = ""
        var afterCR = false
        for scalar in scalars {
            defer { afterCR = scalar == "\r" }
            switch scalar {
            case "\n" where afterCR: continue
            case "\n", "\r": text += "\n    "
            default: text.unicodeScalars.append(scalar)
            }
        }
        return text
    }

    private static func padded(_ word: String) -> String {
        word.count >= 8 ? word : word + String(repeating: " ", count: 8 - word.count)
    }
}
