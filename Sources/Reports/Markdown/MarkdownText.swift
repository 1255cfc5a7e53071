/// Text made safe for GitHub- and GitLab-flavoured Markdown, and lines kept to a width.
enum MarkdownText {
    /// `text` on one line, with what Markdown or the HTML it allows would interpret escaped: `\ ` * _ [ ] | # ~`
    /// with a backslash, `<`, `>` and `&` as entities. Board-supplied strings go through this.
    static func escaped(_ text: String) -> String {
        var result = ""
        for character in VisibleText.singleLine(text) {
            switch character {
            case "\\", "`", "*", "_", "[", "]", "|", "#", "~": result += "\\" + String(character)
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "&": result += "&amp;"
            default: result.append(character)
            }
        }
        return result
    }

    /// `text` cut to at most `width` characters, ending in `…` when cut (never inside an escape).
    static func cut(_ text: String, to width: Int) -> String {
        guard text.count > width else { return text }
        var kept = String(text.prefix(max(0, width - 1)))
        // An escape cut in half would change what follows: drop a trailing lone backslash or entity start.
        if let amp = kept.lastIndex(of: "&"), !kept[amp...].contains(";") { kept = String(kept[..<amp]) }
        var backslashes = 0
        for character in kept.reversed() {
            guard character == "\\" else { break }
            backslashes += 1
        }
        if backslashes % 2 == 1 { kept.removeLast() }
        return kept + "…"
    }

    /// A table row `| a | b | c |` no wider than `width`: when too wide, the cell at `flexible` is cut.
    static func row(_ cells: [String], width: Int, flexible: Int) -> String {
        let line = "| " + cells.joined(separator: " | ") + " |"
        guard line.count > width, cells.indices.contains(flexible) else { return line }
        var cells = cells
        let excess = line.count - width
        cells[flexible] = cut(cells[flexible], to: max(1, cells[flexible].count - excess))
        let fitted = "| " + cells.joined(separator: " | ") + " |"
        return fitted.count <= width ? fitted : cut(fitted, to: width)
    }

    /// Words of `text` in lines of at most `width` characters, lines after the first indented by `indent`;
    /// a word longer than a line is cut.
    static func wrapped(_ text: String, width: Int, indent: String = "  ") -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ", omittingEmptySubsequences: true) {
            let prefix = lines.isEmpty ? "" : indent
            if line.isEmpty {
                line = prefix + word
            } else if line.count + 1 + word.count <= width {
                line += " " + word
            } else {
                lines.append(line)
                line = indent + word
            }
            if line.count > width {
                lines.append(cut(line, to: width))
                line = ""
            }
        }
        if !line.isEmpty { lines.append(line) }
        return lines
    }
}


/// Plain text kept to a width, for `summary.txt` and terminals.
public enum TextWrap {
    /// Every line of `text` longer than `width` broken at spaces, continuation lines indented by `indent`; a
    /// word longer than a line is broken where it must be.
    public static func wrap(_ text: String, width: Int = 100, indent: String = "    ") -> String {
        var out: [String] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var rest = Substring(line)
            var first = true
            while rest.count > width - (first ? 0 : indent.count) {
                let room = width - (first ? 0 : indent.count)
                let head = rest.prefix(room + 1)
                let space = head.lastIndex(of: " ").flatMap { $0 > head.startIndex ? $0 : nil }
                let cut = space ?? rest.index(rest.startIndex, offsetBy: room)
                out.append((first ? "" : indent) + rest[..<cut].trimmingTrailingSpaces)
                rest = rest[cut...].drop { $0 == " " }
                first = false
            }
            out.append((first ? "" : indent) + rest)
        }
        return out.joined(separator: "\n")
    }
}

extension Substring {
    fileprivate var trimmingTrailingSpaces: Substring {
        var text = self
        while text.last == " " { text = text.dropLast() }
        return text
    }
}
