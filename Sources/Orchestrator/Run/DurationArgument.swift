/// A duration given on the command line: `90`, `90s`, `1.5m`, `2h`, `250ms` (a bare number is seconds).
///
/// Parsing never traps, whatever the text: a value that is not a number, not finite, not positive, shorter than a
/// millisecond or longer than ``limit`` is an ``Problem`` that says which, for a usage error.
public enum DurationArgument {
    /// The longest duration any flag takes: a year and a day. Far beyond any run, and far inside what `Duration`
    /// and the clocks' sleeps can hold (292 years of nanoseconds).
    public static let limit: Duration = .seconds(366 * 86_400)

    /// Why a text is not a duration; `description` completes `--timeout: '<text>' ...`.
    public enum Problem: Error, Hashable, Sendable, CustomStringConvertible {
        case notANumber
        case notPositive
        case belowResolution
        case tooLong(limit: Duration)

        public var description: String {
            switch self {
            case .notANumber: "is not a duration such as 90, 90s, 15m or 2h"
            case .notPositive: "must be more than zero"
            case .belowResolution: "is shorter than a millisecond"
            case .tooLong(let limit): "is longer than the most a flag takes (\(DurationArgument.words(limit)))"
            }
        }
    }

    static let units: [(suffix: String, seconds: Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600)]

    /// The duration `text` means, in whole milliseconds.
    public static func parse(_ text: String, limit: Duration = DurationArgument.limit) throws(Problem) -> Duration {
        var number = Substring(text.trimmingCharacters(in: .whitespaces))
        var scale = 1.0
        for unit in units where number.hasSuffix(unit.suffix) {
            number = number.dropLast(unit.suffix.count)
            scale = unit.seconds
            break
        }
        // Double("nan"), Double("inf") and hex floats parse; only decimal numbers (1.5, 2e3) are durations here.
        guard !number.isEmpty, number.allSatisfy({ $0.isASCII && ($0.isNumber || ".-+eE".contains($0)) }),
            let value = Double(number), value.isFinite
        else { throw .notANumber }
        guard value > 0 else { throw .notPositive }
        let milliseconds = (value * scale * 1000).rounded()
        // Compared as Doubles before any conversion to an integer, so no text can make the conversion trap.
        guard milliseconds <= Double(limit.components.seconds) * 1000 else { throw .tooLong(limit: limit) }
        guard milliseconds >= 1 else { throw .belowResolution }
        return .milliseconds(Int64(milliseconds))
    }

    /// `366 days`, `90 s`: a limit in words.
    static func words(_ duration: Duration) -> String {
        let seconds = duration.components.seconds
        return seconds % 86_400 == 0 ? "\(seconds / 86_400) days" : "\(seconds) s"
    }
}
