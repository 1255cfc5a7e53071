/// A deterministic random number generator (xoshiro256**, seeded through SplitMix64). Each part of a simulation or
/// a suite draws from its own stream, named by a label, so adding a board does not change another board's numbers.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var state: (UInt64, UInt64, UInt64, UInt64)

    public init(seed: UInt64) {
        var mixer = SplitMix64(seed: seed)
        state = (mixer.next(), mixer.next(), mixer.next(), mixer.next())
    }

    /// The stream for `label` under `seed`: `SeededRandom(seed: 42, stream: "esp-01/advertising")`.
    public init(seed: UInt64, stream label: String) {
        self.init(seed: seed ^ Self.hash(label))
    }

    public mutating func next() -> UInt64 {
        let result = rotl(state.1 &* 5, 7) &* 9
        let t = state.1 << 17
        state.2 ^= state.0
        state.3 ^= state.1
        state.1 ^= state.2
        state.0 ^= state.3
        state.2 ^= t
        state.3 = rotl(state.3, 45)
        return result
    }

    /// A uniform double in [0, 1).
    public mutating func nextUnit() -> Double { Double(next() >> 11) * 0x1.0p-53 }

    /// FNV-1a over the label's UTF-8 bytes.
    static func hash(_ label: String) -> UInt64 {
        label.utf8.reduce(0xCBF2_9CE4_8422_2325) { ($0 ^ UInt64($1)) &* 0x0000_0100_0000_01B3 }
    }

    /// A value in [0, 1) that depends only on (seed, label, index): random access into a stream, for quantities
    /// such as the advertising delay of event n that must not depend on who looked at earlier events.
    public static func unit(seed: UInt64, stream label: String, index: UInt64) -> Double {
        var mixer = SplitMix64(seed: seed ^ hash(label) ^ (index &* 0x9E37_79B9_7F4A_7C15))
        _ = mixer.next()
        return Double(mixer.next() >> 11) * 0x1.0p-53
    }
}

@inline(__always) private func rotl(_ x: UInt64, _ k: UInt64) -> UInt64 { (x << k) | (x >> (64 - k)) }
