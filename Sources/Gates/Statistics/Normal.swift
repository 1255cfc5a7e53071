import Foundation

/// The standard normal distribution.
enum Normal {
    /// P(Z > z) = erfc(z/√2)/2, accurate far into the tail (no 1 − Φ cancellation).
    static func survival(_ z: Double) -> Double {
        if z == .infinity { return 0 }
        if z == -.infinity { return 1 }
        return 0.5 * erfc(z / 2.0.squareRoot())
    }
}
