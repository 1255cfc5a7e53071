import Foundation

/// Numbers in gate messages, locale-independent: integers without a fraction, at most three decimals from 1 up,
/// three significant digits below 1 (`812.5`, `800`, `0.0004`).
enum GateNumber {
    static func text(_ value: Double) -> String {
        guard value.isFinite else { return value.isNaN ? "NaN" : (value > 0 ? "+Inf" : "-Inf") }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        if abs(value) >= 1 {
            var text = String(format: "%.3f", value)
            while text.hasSuffix("0") { text.removeLast() }
            if text.hasSuffix(".") { text.removeLast() }
            return text
        }
        return String(format: "%.3g", value)
    }

    /// A p-value: `p=0.0004`, `p<1e-12`.
    static func p(_ value: Double) -> String {
        value < 1e-12 ? "p<1e-12" : "p=" + String(format: "%.3g", value)
    }

    /// A signed change in per cent: `+9.8 %`, `-3 %`.
    static func percent(_ fraction: Double) -> String {
        guard fraction.isFinite else { return fraction > 0 ? "+Inf %" : "-Inf %" }
        return (fraction >= 0 ? "+" : "") + text((fraction * 1000).rounded() / 10) + " %"
    }
}
