import Testing

@testable import Orchestrator

/// `--timeout`, `--duration`: every text either is a duration or a problem that says why, never a trap.
@Suite("Durations on the command line")
struct DurationArgumentTests {
    @Test(
        "plain and suffixed durations read as whole milliseconds",
        arguments: [
            ("90", Duration.seconds(90)), ("90s", .seconds(90)), ("1.5m", .seconds(90)), ("2h", .seconds(7200)),
            ("250ms", .milliseconds(250)), (" 15m ", .seconds(900)), ("366h", .seconds(366 * 3600)),
        ])
    func parses(text: String, expected: Duration) throws {
        #expect(try DurationArgument.parse(text) == expected)
    }

    @Test(
        "hostile texts are problems, not crashes",
        arguments: [
            ("99999999999999999h", DurationArgument.Problem.tooLong(limit: DurationArgument.limit)),
            ("1e300s", .tooLong(limit: DurationArgument.limit)), ("9223372036854775807", .tooLong(limit: DurationArgument.limit)),
            ("367d", .notANumber), ("soon", .notANumber), ("", .notANumber), ("nan", .notANumber), ("inf", .notANumber),
            ("infinity", .notANumber), ("0x10", .notANumber), ("1e400", .notANumber), ("-5", .notPositive),
            ("0", .notPositive), ("-0", .notPositive), ("0.0001", .belowResolution), ("0.4ms", .belowResolution),
        ])
    func refuses(text: String, problem: DurationArgument.Problem) {
        #expect(throws: problem) { try DurationArgument.parse(text) }
    }

    @Test("the limit is a year and a day, and a duration just past it is refused")
    func limit() throws {
        #expect(try DurationArgument.parse("\(366 * 24)h") == .seconds(366 * 86_400))
        #expect(throws: DurationArgument.Problem.tooLong(limit: DurationArgument.limit)) {
            try DurationArgument.parse("\(366 * 24 * 3600 + 1)")
        }
        #expect(DurationArgument.Problem.tooLong(limit: DurationArgument.limit).description.contains("366 days"))
    }
}
