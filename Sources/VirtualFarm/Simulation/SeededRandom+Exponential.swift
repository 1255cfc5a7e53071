import BLECore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension SeededRandom {
    /// An exponentially distributed value with the given mean (the gap between events of a Poisson process).
    public mutating func nextExponential(mean: Double) -> Double { -mean * log1p(-nextUnit()) }
}
