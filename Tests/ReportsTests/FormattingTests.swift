import Foundation
import Testing

@testable import Reports

@Suite("Formatting: rig times, numbers and timestamps")
struct FormattingTests {
    static let rigTimes: [(Duration, String)] = [
        (.zero, "0"),
        (.milliseconds(12_345), "12.345"),
        (.nanoseconds(1), "0.000000001"),
        (.nanoseconds(-1), "-0.000000001"),
        (.seconds(-1.5), "-1.5"),
        (.seconds(259_200), "259200"),
        (Duration(secondsComponent: 3, attosecondsComponent: 1), "3.000000000000000001"),
    ]

    @Test("rig times are written as exact decimal seconds", arguments: rigTimes)
    func rigTimeText(duration: Duration, text: String) {
        #expect(RigTimeCoding.text(duration) == text)
        #expect(RigTimeCoding.duration(text) == duration)
    }

    @Test(
        "text that is not decimal seconds is rejected, not trapped on",
        arguments: [
            "", "-", ".5", "5.", "1e3", "+1", " 1", "1 ", "1.2.3", "0x10", "1.0000000000000000001", "١٢",
            "99999999999999999999", "NaN", "--1",
        ])
    func rigTimeRejects(text: String) {
        #expect(RigTimeCoding.duration(text) == nil)
    }

    @Test(
        "human numbers drop needless decimals and keep small values readable",
        arguments: [
            (212.4, "212.4"), (150, "150"), (0.0004, "0.0004"), (1234.5678, "1234.568"), (-3.25, "-3.25"),
            (0.125, "0.125"), (.nan, "NaN"), (.infinity, "+Inf"), (-.infinity, "-Inf"), (1e20, "100000000000000000000"),
        ])
    func humanNumbers(value: Double, text: String) {
        #expect(NumberText.human(value) == text)
    }

    @Test(
        "machine numbers read back as the same Double",
        arguments: [212.4, 150, 0.1, 1e-7, -2.5, 123_456_789.125, Double.ulpOfOne])
    func machineNumbersRoundTrip(value: Double) {
        #expect(Double(NumberText.machine(value)) == value)
    }

    @Test(
        "JUnit times have three decimals and never a sign",
        arguments: [
            (Duration.milliseconds(1_250), "1.250"), (.zero, "0.000"), (.seconds(-2), "0.000"),
            (.microseconds(1_999_600), "2.000"), (.seconds(259_200), "259200.000"),
        ])
    func junitSeconds(duration: Duration, text: String) {
        #expect(NumberText.seconds3(duration) == text)
    }

    @Test(
        "timestamps are UTC civil dates, including leap days and before 1970",
        arguments: [
            (0.0, "1970-01-01T00:00:00"), (1_740_821_400.75, "2025-03-01T09:30:00"),
            (951_782_400, "2000-02-29T00:00:00"), (4_107_542_399, "2100-02-28T23:59:59"),
            (-1, "1969-12-31T23:59:59"), (-86_400.5, "1969-12-30T23:59:59"),
        ])
    func timestamps(seconds: Double, text: String) {
        #expect(NumberText.timestamp(Date(timeIntervalSince1970: seconds)) == text)
    }

    @Test("rig times in listings have microsecond precision")
    func listingTime() {
        #expect(NumberText.rigTime(.init(sinceOrigin: .microseconds(3_500_250))) == "+3.500250s")
    }
}
