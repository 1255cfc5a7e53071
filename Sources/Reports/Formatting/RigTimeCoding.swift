import BLECore

/// The text form of rig-clock times in a run log: signed decimal seconds with up to 18 fraction digits
/// (`"12.345"`, `"0"`, `"-0.000000001"`). It is exact — every `Duration` survives the round trip to the
/// attosecond — and a person reading the JSON Lines sees seconds rather than `Duration`'s two 64-bit halves.
enum RigTimeCoding {
    static func text(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let negative = seconds < 0 || attoseconds < 0
        var fraction = String(attoseconds.magnitude)
        fraction = String(repeating: "0", count: 18 - fraction.count) + fraction
        while fraction.hasSuffix("0") { fraction.removeLast() }
        return (negative ? "-" : "") + String(seconds.magnitude) + (fraction.isEmpty ? "" : "." + fraction)
    }

    /// Parses ``text(_:)``'s form; nil for anything else (no exponent, no `+`, at most 18 fraction digits).
    static func duration(_ text: String) -> Duration? {
        var rest = Substring(text)
        let negative = rest.hasPrefix("-")
        if negative { rest = rest.dropFirst() }
        let parts = rest.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let whole = parts[0]
        let fraction = parts.count == 2 ? parts[1] : ""
        guard !whole.isEmpty, whole.allSatisfy(\.isASCIIDigit), fraction.allSatisfy(\.isASCIIDigit),
            fraction.count <= 18, parts.count == 1 || !fraction.isEmpty,
            let seconds = Int64(whole),
            let attoseconds = Int64(fraction + String(repeating: "0", count: 18 - fraction.count))
        else { return nil }
        let sign: Int64 = negative ? -1 : 1
        return Duration(secondsComponent: sign * seconds, attosecondsComponent: sign * attoseconds)
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}

extension KeyedEncodingContainer {
    mutating func encode(rigTime duration: Duration, forKey key: Key) throws {
        try encode(RigTimeCoding.text(duration), forKey: key)
    }

    mutating func encode(rigTime instant: RigInstant, forKey key: Key) throws {
        try encode(RigTimeCoding.text(instant.sinceOrigin), forKey: key)
    }
}

extension KeyedDecodingContainer {
    func decodeDuration(forKey key: Key) throws -> Duration {
        let text = try decode(String.self, forKey: key)
        guard let duration = RigTimeCoding.duration(text) else {
            throw Swift.DecodingError.dataCorruptedError(
                forKey: key, in: self,
                debugDescription: "\"\(text)\" is not a rig time; expected decimal seconds such as \"12.345\"")
        }
        return duration
    }

    func decodeInstant(forKey key: Key) throws -> RigInstant {
        RigInstant(sinceOrigin: try decodeDuration(forKey: key))
    }
}
