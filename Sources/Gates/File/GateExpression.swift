import Orchestrator
import Reports

/// The expression of an absolute gate, `<metric>.<statistic> <comparison> <limit>`:
/// `handshake.ready_ms.p50 <= 800`, `ota.success_rate.first_try >= 99.2%`.
///
/// The metric is a dotted name (`handshake.ready_ms`) and the statistic its last part (`p50`, `max`, `count`,
/// `value`, `first_try`, ...); the comparison is `<=`, `<`, `>=` or `>`; the limit a finite number, or a
/// percentage (`99.2%` is 0.992).
enum GateExpression {
    /// The limit, or nil after recording a problem located at the offending part of the text.
    static func parse(_ node: RigNode, diagnostics: RigDiagnostics) -> AbsoluteLimit? {
        guard let scalar = node.scalar, !scalar.isNull else {
            diagnostics.record(
                .wrongType, "a gate must be an expression such as 'handshake.ready_ms.p50 <= 800', found \(node.summary)",
                at: node.location)
            return nil
        }
        let text = Array(scalar.text.unicodeScalars)
        // Where character `offset` of the text is in the file (exact for text on one line without escapes).
        func location(_ offset: Int) -> SourceLocation {
            var location = node.location
            location.column += offset + (scalar.isQuoted ? 1 : 0)
            return location
        }
        func fail(_ code: RigFileIssue.Code, _ message: String, at offset: Int) -> AbsoluteLimit? {
            diagnostics.record(code, message, at: location(offset))
            return nil
        }
        guard let operatorStart = text.firstIndex(where: { "<>=!".unicodeScalars.contains($0) }) else {
            return fail(
                .invalidValue,
                "gate \(RigWording.quoted(scalar.text)) has no comparison (write <metric>.<statistic> <= <limit>; "
                    + "<, >= and > also work)", at: 0)
        }
        var operatorEnd = operatorStart
        while operatorEnd < text.count, "<>=!".unicodeScalars.contains(text[operatorEnd]) { operatorEnd += 1 }
        let symbol = String(String.UnicodeScalarView(text[operatorStart..<operatorEnd]))
        guard let comparison = AbsoluteLimit.Comparison(rawValue: symbol) else {
            return fail(
                .invalidValue, "unknown comparison '\(symbol)' (expected <=, <, >= or >)", at: operatorStart)
        }
        let left = String(String.UnicodeScalarView(text[..<operatorStart]))
        let leftStart = text.firstIndex { !$0.properties.isWhitespace } ?? 0
        let name = left.trimmingWhitespace
        guard let (metric, statistic) = MetricName.split(name) else {
            let shown = name.isEmpty ? "nothing" : RigWording.quoted(name)
            let hint =
                MetricName.isMetric(name)
                ? " (\(name) needs a statistic: \(name).p50, .p95, .max, .count, .value, ...)"
                : " (expected <metric>.<statistic>, such as handshake.ready_ms.p50)"
            return fail(.invalidValue, "\(shown) is not a metric and statistic\(hint)", at: leftStart)
        }
        let right = String(String.UnicodeScalarView(text[operatorEnd...]))
        let rightStart = text[operatorEnd...].firstIndex { !$0.properties.isWhitespace } ?? text.count
        guard let limit = LimitNumber.parse(right.trimmingWhitespace) else {
            let shown = right.trimmingWhitespace.isEmpty ? "nothing" : RigWording.quoted(right.trimmingWhitespace)
            return fail(
                .invalidValue, "the limit of a gate must be a number (or a percentage such as 99.2%), found \(shown)",
                at: rightStart)
        }
        return AbsoluteLimit(metric: metric, statistic: Statistic(statistic), comparison: comparison, limit: limit)
    }
}

/// Metric names: dotted lower-case words, `handshake.ready_ms`; a statistic is one more word.
enum MetricName {
    /// Whether `text` is a metric name: at least two parts, each of letters, digits and `_`.
    static func isMetric(_ text: String) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count >= 2 && parts.allSatisfy(isWord)
    }

    /// `handshake.ready_ms.p50` as (`handshake.ready_ms`, `p50`); nil unless a metric and a statistic.
    static func split(_ text: String) -> (metric: String, statistic: String)? {
        guard let dot = text.lastIndex(of: ".") else { return nil }
        let metric = String(text[..<dot])
        let statistic = String(text[text.index(after: dot)...])
        guard isMetric(metric), isWord(Substring(statistic)) else { return nil }
        return (metric, statistic)
    }

    static func isWord(_ part: Substring) -> Bool {
        !part.isEmpty && part.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_") }
    }

    /// The unit a metric's name ends in, for `min_effect_ms`: `handshake.ready_ms` is in ms, `ota.duration_s`
    /// in s; nil for names without a time suffix.
    static func timeUnitSeconds(_ metric: String) -> Double? {
        if metric.hasSuffix("_ms") { return 0.001 }
        if metric.hasSuffix("_s") { return 1 }
        return nil
    }
}

/// A finite number, or a percentage: `800`, `0.5`, `1e3`, `99.2%`.
enum LimitNumber {
    static func parse(_ text: String) -> Double? {
        if text.hasSuffix("%") {
            return number(String(text.dropLast()).trimmingWhitespace).map { $0 / 100 }
        }
        return number(text)
    }

    static func number(_ text: String) -> Double? {
        let body = text.filter { $0 != "_" }
        guard !body.isEmpty, body.allSatisfy({ "0123456789+-.eE".contains($0) }), body.contains(where: \.isNumber),
            let value = Double(body), value.isFinite
        else { return nil }
        return value
    }
}

extension String {
    var trimmingWhitespace: String {
        let scalars = unicodeScalars
        guard let start = scalars.firstIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        let end = scalars.lastIndex { !$0.properties.isWhitespace }!
        return String(scalars[start...end])
    }
}
