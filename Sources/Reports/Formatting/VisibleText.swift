/// Characters that reports must not write as they are, replaced by a visible escape so that nothing is lost:
/// a BEL from a board's console shows up as `\x07` instead of breaking the XML or the terminal.
///
/// Replaced are the characters XML 1.0 forbids (§2.2: C0 controls other than tab, LF and CR; U+FFFE and
/// U+FFFF) and the controls it discourages (DEL and the C1 range, U+007F–U+009F). Scalars below U+0100 become
/// `\xHH`, the others `\u{HHHH}`. A backslash already in the text stays as it is, so the replacement is for
/// people to read, not a reversible encoding. (Lone surrogates cannot occur in a Swift `String`.)
enum VisibleText {
    /// The visible replacement for `scalar`, or nil when it may be written as it is.
    static func replacement(for scalar: Unicode.Scalar) -> String? {
        switch scalar.value {
        case 0x09, 0x0A, 0x0D: nil
        case 0x00...0x1F, 0x7F...0x9F: "\\x" + hex(scalar.value, digits: 2)
        case 0xFFFE, 0xFFFF: "\\u{" + hex(scalar.value, digits: 4) + "}"
        default: nil
        }
    }

    /// `text` with every replaced scalar written visibly; tab, LF and CR are kept.
    static func visible(_ text: String) -> String {
        // A replaced scalar is a C0 control other than tab, LF and CR, DEL, a C1 control (UTF-8 lead byte C2) or
        // U+FFFE/U+FFFF (lead byte EF): text with none of those bytes is returned without decoding it.
        guard text.utf8.contains(where: { byte in
            (byte < 0x20 && byte != 0x09 && byte != 0x0A && byte != 0x0D) || byte == 0x7F || byte == 0xC2
                || byte == 0xEF
        }) else { return text }
        guard text.unicodeScalars.contains(where: { replacement(for: $0) != nil }) else { return text }
        var result = ""
        for scalar in text.unicodeScalars {
            if let replaced = replacement(for: scalar) {
                result += replaced
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// One line for a terminal: controls replaced, and line breaks and tabs turned into spaces.
    static func singleLine(_ text: String) -> String {
        var result = ""
        for scalar in visible(text).unicodeScalars {
            switch scalar {
            case "\n", "\r", "\t": result += " "
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    private static func hex(_ value: UInt32, digits: Int) -> String {
        let text = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}
