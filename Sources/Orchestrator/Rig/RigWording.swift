/// Helpers for messages that say what was meant.
public enum RigWording {
    /// The most characters of a value quoted back in a message (``quoted(_:)``).
    public static let quoteLimit = 40

    /// A value as messages quote it: `'esp-pointt'`. Control characters, line and paragraph separators and
    /// bidirectional controls are written as escapes (`\t`, `\n`, `\u{202E}`), and a value longer than
    /// ``quoteLimit`` characters keeps its start and end around an ellipsis
    /// (`'/dev/serial/by-id/usb-Sili…01-if00-port0'`), so a message stays one line of reasonable length whatever the
    /// file holds.
    public static func quoted(_ value: String) -> String { "'\(excerpt(value))'" }

    /// ``quoted(_:)`` without the quotes.
    public static func excerpt(_ value: String) -> String {
        var pieces: [String] = []
        var length = 0
        for scalar in value.unicodeScalars {
            let piece = visible(scalar)
            pieces.append(piece)
            length += piece.count
            // Enough to know the value is too long; the end is taken from the scalars below.
            if length > quoteLimit * 2 { break }
        }
        guard length > quoteLimit else { return pieces.joined() }
        let headLimit = quoteLimit * 2 / 3
        let tailLimit = quoteLimit - headLimit - 1
        var head = ""
        for piece in pieces {
            guard head.count + piece.count <= headLimit else { break }
            head += piece
        }
        var tail: [String] = []
        var tailLength = 0
        for scalar in value.unicodeScalars.reversed() {
            let piece = visible(scalar)
            guard tailLength + piece.count <= tailLimit else { break }
            tail.append(piece)
            tailLength += piece.count
        }
        return head + "…" + tail.reversed().joined()
    }

    /// `scalar` itself, or an escape when it would break the line, be invisible or reorder the text around it.
    static func visible(_ scalar: Unicode.Scalar) -> String {
        switch scalar {
        case "\t": return "\\t"
        case "\n": return "\\n"
        case "\r": return "\\r"
        default: break
        }
        switch scalar.properties.generalCategory {
        case .control, .lineSeparator, .paragraphSeparator, .surrogate, .privateUse, .unassigned:
            return "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
        default:
            guard bidirectionalControls.contains(where: { $0.contains(scalar.value) }) else { return String(scalar) }
            return "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
        }
    }

    /// Characters that reorder or mark the text around them without showing (and the byte order mark).
    private static let bidirectionalControls: [ClosedRange<UInt32>] = [
        0x061C...0x061C, 0x200E...0x200F, 0x202A...0x202E, 0x2066...0x2069, 0xFEFF...0xFEFF,
    ]

    /// `a`, `a or b`, `a, b or c`.
    public static func list(_ items: [String], conjunction: String = "or") -> String {
        switch items.count {
        case 0: return "nothing"
        case 1: return items[0]
        default: return items.dropLast().joined(separator: ", ") + " \(conjunction) " + items[items.count - 1]
        }
    }

    /// The candidate closest to `word` if it is close enough to be a likely typo (edit distance with
    /// transpositions, ignoring case, at most a third of the word's length but at least 1 or 2), or if one is a
    /// prefix of the other.
    public static func suggestion(for word: String, among candidates: [String]) -> String? {
        let lowered = word.lowercased()
        guard !lowered.isEmpty else { return nil }
        let allowed = lowered.count <= 3 ? 1 : max(2, lowered.count / 3)
        let scalars = Array(lowered.unicodeScalars)
        var best: (candidate: String, distance: Int)?
        for candidate in candidates {
            let other = candidate.lowercased()
            let otherScalars = Array(other.unicodeScalars)
            // The distance is at least the difference in length: past `allowed`, only the prefix rule can help, and
            // a long key (a pasted line) is not aligned against every candidate.
            var distance =
                abs(scalars.count - otherScalars.count) > allowed
                ? allowed + 1 : editDistance(scalars, otherScalars)
            if distance > allowed, other.hasPrefix(lowered) || lowered.hasPrefix(other),
                min(other.count, lowered.count) >= 3
            {
                distance = allowed
            }
            if distance <= allowed, distance < (best?.distance ?? .max) { best = (candidate, distance) }
        }
        return best?.candidate
    }

    /// ` (did you mean 'baud'?)` or ` (expected port, baud or reset)`.
    public static func hint(for word: String, among candidates: [String]) -> String {
        if let suggestion = suggestion(for: word, among: candidates) { return " (did you mean '\(suggestion)'?)" }
        return candidates.isEmpty ? "" : " (expected \(list(candidates)))"
    }

    /// A number as written in messages: `4000`, `7.5`, `0.625`.
    public static func number(_ value: Double) -> String {
        if value.rounded() == value, abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }

    /// Optimal string alignment distance: insertions, deletions, substitutions and adjacent transpositions.
    static func editDistance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous2 = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], previous2[j - 2] + 1)
                }
            }
            (previous2, previous, current) = (previous, current, previous2)
        }
        return previous[b.count]
    }
}
