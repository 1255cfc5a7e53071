/// Escaping for the hand-written XML reports. Every string that goes into a report passes through one of these
/// two functions; both first make forbidden characters visible (``VisibleText``), then escape the five markup
/// characters `& < > " '` wherever they occur, so no input can close an element, an attribute or a comment,
/// and `]]>` can never appear literally.
enum XMLEscaping {
    /// For character data between tags. Tab and LF stay literal; CR is written `&#13;` because a parser would
    /// otherwise fold `\r\n` into `\n`.
    static func text(_ value: String) -> String {
        escape(value, whitespace: false)
    }

    /// For a double-quoted attribute value. Tab, LF and CR become character references too: attribute-value
    /// normalization (XML 1.0 §3.3.3) would turn literal ones into spaces.
    static func attribute(_ value: String) -> String {
        escape(value, whitespace: true)
    }

    private static func escape(_ value: String, whitespace: Bool) -> String {
        let visible = VisibleText.visible(value)
        // Every character escaped here is ASCII, so the UTF-8 bytes can be cut at them: a multi-byte character
        // is copied whole. Most report text has none, and is returned as it is.
        guard visible.utf8.contains(where: { needsEscape($0, whitespace: whitespace) }) else { return visible }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(visible.utf8.count + 32)
        for byte in visible.utf8 {
            guard needsEscape(byte, whitespace: whitespace) else {
                bytes.append(byte)
                continue
            }
            switch byte {
            case UInt8(ascii: "&"): bytes.append(contentsOf: "&amp;".utf8)
            case UInt8(ascii: "<"): bytes.append(contentsOf: "&lt;".utf8)
            case UInt8(ascii: ">"): bytes.append(contentsOf: "&gt;".utf8)
            case UInt8(ascii: "\""): bytes.append(contentsOf: "&quot;".utf8)
            case UInt8(ascii: "'"): bytes.append(contentsOf: "&apos;".utf8)
            case UInt8(ascii: "\r"): bytes.append(contentsOf: "&#13;".utf8)
            case UInt8(ascii: "\n"): bytes.append(contentsOf: "&#10;".utf8)
            default: bytes.append(contentsOf: "&#9;".utf8)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func needsEscape(_ byte: UInt8, whitespace: Bool) -> Bool {
        switch byte {
        case UInt8(ascii: "&"), UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "\""), UInt8(ascii: "'"),
            UInt8(ascii: "\r"):
            true
        case UInt8(ascii: "\n"), UInt8(ascii: "\t"): whitespace
        default: false
        }
    }
}
