import BLECore
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

    @Test(
        "rig times in listings have microsecond precision, rounded from the exact duration",
        arguments: [
            (Duration.microseconds(3_500_250), "+3.500250s"), (.zero, "+0.000000s"), (.nanoseconds(499), "+0.000000s"),
            (.nanoseconds(500), "+0.000001s"), (.nanoseconds(4_772_088_500), "+4.772089s"),
            (.seconds(259_200), "+259200.000000s"), (.nanoseconds(-1_500), "-0.000002s"),
            (.microseconds(-3_500_250), "-3.500250s"),
        ])
    func listingTime(duration: Duration, text: String) {
        #expect(NumberText.rigTime(.init(sinceOrigin: duration)) == text)
    }

    @Test(
        "decimal text places the point in integer units",
        arguments: [(3_500_250, 6, "3.500250"), (5, 3, "0.005"), (-5, 3, "-0.005"), (1000, 3, "1.000"), (42, 0, "42")])
    func decimalUnits(units: Int, decimals: Int, text: String) {
        #expect(NumberText.decimal(units, decimals: decimals) == text)
    }

    /// The integer paths of `human` and `significant` write what printf's `%.Nf` wrote before them, over values
    /// of every magnitude they take and over values a hair from a tie, where the product's rounding could differ.
    @Test("human and significant numbers agree with printf")
    func numbersAgreeWithPrintf() {
        var generator = SplitMix64(seed: 16)
        var values: [Double] = [1.0005, 2.0005, 1.2345, 1000.0005, 0.99951, 1.0004999999, 9_999_999.9995, -1.0005]
        for _ in 0..<20_000 {
            let magnitude = Double.random(in: -6...9, using: &generator)
            values.append((Bool.random(using: &generator) ? 1 : -1) * pow(10, magnitude))
            values.append((Double(Int.random(in: 1...100_000, using: &generator)) + 0.5) / 1000)
        }
        for value in values {
            if abs(value) >= 1, value != value.rounded() {
                var trimmed = String(format: "%.3f", value)
                while trimmed.hasSuffix("0") { trimmed.removeLast() }
                if trimmed.hasSuffix(".") { trimmed.removeLast() }
                #expect(NumberText.human(value) == trimmed, "\(value)")
            }
            let magnitude = Int(log10(abs(value)).rounded(.down))
            let decimals = max(0, min(15, 3 - magnitude))
            let scale = pow(10, Double(decimals))
            let rounded = (value * scale).rounded() / scale
            guard rounded != rounded.rounded() else { continue }
            var expected = String(format: "%.\(decimals)f", rounded)
            while expected.hasSuffix("0") { expected.removeLast() }
            if expected.hasSuffix(".") { expected.removeLast() }
            #expect(NumberText.significant(value) == expected, "\(value)")
        }
    }

    @Test(
        "metric names keep [a-zA-Z0-9_] and make anything else one _ per character",
        arguments: [
            ("blerig_gatt_write_rtt_seconds", "blerig_gatt_write_rtt_seconds"), ("blerig_a.b-c d", "blerig_a_b_c_d"),
            ("blerig_café", "blerig_caf_"), ("blerig_Δt_ms", "blerig__t_ms"), ("blerig_🔋x", "blerig__x"),
            ("blerig_e\u{301}", "blerig_e_"),
        ])
    func metricNames(name: String, sanitized: String) {
        #expect(BaseUnit.sanitized(name) == sanitized)
    }

    @Test(
        "property names make whitespace _ and controls visible",
        arguments: [
            ("gatt.write_rtt_ms.p50", "gatt.write_rtt_ms.p50"), ("a b\tc", "a_b_c"), ("a\u{00A0}b", "a_b"),
            ("a\u{2003}b\u{3000}", "a_b_"), ("läuft", "läuft"), ("a\u{1C}b", "a\\x1Cb"),
        ])
    func propertyNames(name: String, expected: String) {
        #expect(JUnitWriter.propertyName(name) == expected)
    }
}
