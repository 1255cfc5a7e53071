import Foundation
import Reports

extension SuiteAbout {
    /// Every suite blerig has, in the order they run when a rig lists them all; each with the option every suite
    /// takes, `check_timeout_s`, and its default for that suite.
    public static var all: [SuiteAbout] {
        SuiteCatalog.suites.map { type in
            var about = type.about
            about.options.append(
                Option(
                    SuiteCatalog.checkTimeoutKey, OptionText.seconds(type.defaults.defaultCheckTimeout),
                    "the most bench time each check may take before it ends as interrupted"))
            return about
        }
    }

    /// What every board reports whatever the suites: the preflight that brings it up, and its wait for a link.
    public static var everyBoard: SuiteAbout {
        SuiteAbout(
            name: "preflight",
            summary: "every board, before its suites: powered on (or reset) until it advertises, then given a "
                + "radio link",
            options: [],
            metrics: [
                .init(
                    "board.first_advertisement_s", .seconds, [.value],
                    "power on (or reset) → first advertising report"),
                .init(
                    "schedule.link_wait_ms", .milliseconds, [.value],
                    "preflight passed → a radio link granted (waiting while every radio the board may use held its "
                        + "maximum of links)"),
            ])
    }

    /// The description of the suite `name`, or of the preflight.
    public static func named(_ name: String) -> SuiteAbout? {
        name == everyBoard.name ? everyBoard : all.first { $0.name == name }
    }

    /// The listing `blerig suites` prints: per suite its summary, options with defaults and metrics with
    /// definitions, words wrapped at ``width`` columns.
    public var lines: [String] {
        var lines = Self.wrap("\(name): \(summary)", indent: "  ")
        if !options.isEmpty {
            lines.append("  options (default):")
            let width = options.map { $0.key.count + $0.defaultValue.count + 3 }.max() ?? 0
            for option in options {
                let head = "\(option.key) (\(option.defaultValue))"
                lines += Self.wrap(
                    "    " + head.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + option.meaning,
                    indent: String(repeating: " ", count: width + 6))
            }
        }
        lines.append("  metrics:")
        for metric in metrics {
            let unit = metric.unit.rawValue.isEmpty ? "count" : metric.unit.rawValue
            lines.append("    \(metric.name) [\(unit); \(metric.statistics.joined(separator: ", "))]")
            lines += Self.wrap("      \(metric.definition)", indent: "      ")
        }
        return lines
    }

    /// The listing's width in columns.
    public static let width = 100

    /// `text` broken at spaces into lines of at most ``width`` columns (a longer word stays whole), the lines after
    /// the first starting with `indent`.
    static func wrap(_ text: String, indent: String) -> [String] {
        var lines: [String] = []
        let lead = String(text.prefix { $0 == " " })
        var line = lead
        for word in text.dropFirst(lead.count).split(separator: " ", omittingEmptySubsequences: false) {
            let candidate = line == lead ? line + word : line + " " + word
            if candidate.count > width, line != lead, line != indent {
                lines.append(line)
                line = indent + word
            } else {
                line = candidate
            }
        }
        lines.append(line)
        return lines
    }
}
