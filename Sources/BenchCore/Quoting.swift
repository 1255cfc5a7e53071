/// User text inside a message: quoted, control characters made visible (`\u{07}`), and a long value cut in the
/// middle, so a message stays one short line whatever was written (the rig loader's rule for its own messages).
public enum Quoting {
    /// The most characters of a value a message shows.
    public static let limit = 40

    /// `'D0|R1|X1'`; `'xxxxxxxxxxxxxxxxxxxxxxxxx…xxxxxxxxxxxxx'` for a long one.
    public static func quoted(_ value: some StringProtocol) -> String {
        let pieces = value.unicodeScalars.map(visible)
        guard pieces.count > limit else { return "'\(pieces.joined())'" }
        let head = limit * 2 / 3
        return "'\(pieces.prefix(head).joined())…\(pieces.suffix(limit - head - 1).joined())'"
    }

    static func visible(_ scalar: Unicode.Scalar) -> String {
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator, .unassigned, .surrogate, .privateUse:
            "\\u{\(String(scalar.value, radix: 16))}"
        default:
            String(scalar)
        }
    }
}
