import BLECore
import Foundation

/// How reports write numbers and times. Every function here is locale-independent and deterministic, so a
/// report rendered twice from the same log is byte-for-byte the same.
enum NumberText {
    /// Seconds with three decimals, as JUnit `time` attributes want them (the schema's `SUREFIRE_TIME` has no
    /// sign, so a negative duration is written as zero).
    static func seconds3(_ duration: Duration) -> String {
        decimal(rounded(max(.zero, duration), decimals: 3), decimals: 3)
    }

    /// A number as people read it: integers without a fraction, at most three decimals from 1 up, three
    /// significant digits below 1 (`212.4`, `150`, `0.0004`).
    static func human(_ value: Double) -> String {
        if let special = nonFinite(value) { return special }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        if abs(value) >= 1 {
            // Thousandths in integers, unless the value lies so close to a tie that the product's rounding could
            // decide it differently from the exact binary value: then printf decides.
            let thousandths = (value * 1000).rounded()
            if abs(thousandths) < 1e15, abs(value * 1000 - thousandths) < 0.499 {
                return trimmingZeros(decimal(Int64(thousandths), decimals: 3))
            }
            return trimmingZeros(String(format: "%.3f", value))
        }
        return String(format: "%.3g", value)
    }

    /// A number for machines (JUnit property values, JSON): integers without a fraction, otherwise the shortest
    /// text that reads back as the same `Double`. Non-finite values as OpenMetrics spells them.
    static func machine(_ value: Double) -> String {
        if let special = nonFinite(value) { return special }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return value.description
    }

    /// A measured number rounded to `digits` significant digits, without float noise and without an exponent:
    /// integers as they are (`200`, `1234567`), others rounded (`0.35808767599999997` → `0.3581`, `212.449` →
    /// `212.4`, `1234.56` → `1235`, `0.000012345` → `0.00001235`). Non-finite values as OpenMetrics spells them.
    /// Below 1e-12 a value is written as 0 (nothing blerig measures means anything there).
    static func significant(_ value: Double, digits: Int = 4) -> String {
        if let special = nonFinite(value) { return special }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        if abs(value) < 1e-12 { return "0" }
        let magnitude = Int(log10(abs(value)).rounded(.down))
        let decimals = max(0, min(15, digits - 1 - magnitude))
        let scale = pow(10, Double(decimals))
        let units = (value * scale).rounded()
        let rounded = units / scale
        if decimals == 0 || rounded == rounded.rounded(), abs(rounded) < 1e15 { return String(Int64(rounded)) }
        // At most `digits` significant digits, so `units` is small and exact: its digits are what printf's "%.Nf"
        // writes for `rounded`, without the format parsing and the bridging (a fifth of metrics.prom's time).
        guard abs(units) < 1e15 else { return trimmingZeros(String(format: "%.\(decimals)f", rounded)) }
        return trimmingZeros(decimal(Int64(units), decimals: decimals))
    }

    /// A point on the rig clock for log listings: `+12.345678s`, microsecond precision.
    static func rigTime(_ instant: RigInstant) -> String {
        let micro = rounded(instant.sinceOrigin, decimals: 6)
        return (instant.sinceOrigin < .zero ? "-" : "+") + decimal(micro.magnitude, decimals: 6) + "s"
    }

    /// `duration` in units of 10^-`decimals` s, rounded half away from zero, from its exact attoseconds.
    static func rounded(_ duration: Duration, decimals: Int) -> Int64 {
        let (seconds, attoseconds) = duration.components
        let total = Int128(seconds) * 1_000_000_000_000_000_000 + Int128(attoseconds)
        var unit: Int128 = 1
        for _ in decimals..<18 { unit *= 10 }
        let half = unit / 2
        return Int64(clamping: total >= 0 ? (total + half) / unit : -((-total + half) / unit))
    }

    /// `units` × 10^-`decimals` with exactly `decimals` decimals: (3_500_250, 6) → `3.500250`, (-5, 3) → `-0.005`.
    static func decimal<Units: BinaryInteger>(_ units: Units, decimals: Int) -> String {
        var digits = Array(String(units.magnitude).utf8)
        if decimals > 0 {
            if digits.count <= decimals {
                digits.insert(contentsOf: repeatElement(UInt8(ascii: "0"), count: decimals + 1 - digits.count), at: 0)
            }
            digits.insert(UInt8(ascii: "."), at: digits.count - decimals)
        }
        if units < 0 { digits.insert(UInt8(ascii: "-"), at: 0) }
        return String(decoding: digits, as: UTF8.self)
    }

    /// The JUnit `timestamp` form, `2025-03-01T09:30:00`: UTC, whole seconds, no zone designator (the form the
    /// Ant JUnit schema and Jenkins accept).
    static func timestamp(_ date: Date) -> String {
        let total = Int64(date.timeIntervalSince1970.rounded(.down))
        let days = total >= 0 ? total / 86_400 : (total - 86_399) / 86_400
        let secondOfDay = total - days * 86_400
        let (year, month, day) = civilDate(daysSince1970: days)
        return String(
            format: "%04lld-%02lld-%02lldT%02lld:%02lld:%02lld", year, month, day, secondOfDay / 3600,
            secondOfDay / 60 % 60, secondOfDay % 60)
    }

    /// Howard Hinnant's `civil_from_days`: the proleptic Gregorian date of a day count since 1970-01-01.
    static func civilDate(daysSince1970 days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    private static func nonFinite(_ value: Double) -> String? {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value < 0 ? "-Inf" : "+Inf" }
        return nil
    }

    private static func trimmingZeros(_ text: String) -> String {
        guard text.contains(".") else { return text }
        var trimmed = Substring(text)
        while trimmed.hasSuffix("0") { trimmed = trimmed.dropLast() }
        if trimmed.hasSuffix(".") { trimmed = trimmed.dropLast() }
        return String(trimmed)
    }
}
