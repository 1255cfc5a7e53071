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
        var result = ""
        result.reserveCapacity(value.utf8.count)
        for scalar in VisibleText.visible(value).unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&apos;"
            case "\r": result += "&#13;"
            case "\n" where whitespace: result += "&#10;"
            case "\t" where whitespace: result += "&#9;"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
