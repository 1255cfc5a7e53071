/// libyaml's parse failures as issues in the rig file format: one line, `file:line:column`, in our own words where
/// libyaml's would name its internals.
extension RigNode {
    /// The issue for `failure`; `depth` is how deeply the composer was nested when libyaml stopped.
    static func syntaxIssue(_ failure: YAMLParseFailure, depth: Int, file: String, bytes: [UInt8]) -> RigFileIssue {
        let end = YAMLText.endMark(of: bytes)
        func at(_ mark: YAMLMark) -> SourceLocation {
            let mark = mark.clamped(to: end)
            return SourceLocation(file: file, line: mark.line, column: mark.column)
        }
        switch failure.stage {
        case .memory:
            return RigFileIssue(
                .tooLarge, "the file is too large: the YAML parser ran out of memory", at: at(failure.mark))
        case .reader:
            let place = YAMLText.mark(ofByteOffset: failure.byteOffset, in: bytes)
            let character = failure.value >= 0 ? " (\(YAMLText.codePoint(UInt32(failure.value))))" : ""
            return RigFileIssue(.syntax, "YAML syntax error: \(failure.problem)\(character)", at: at(place))
        case .scanner, .parser:
            if failure.problem.contains("nesting level") || failure.problem.contains("yaml_") {
                // libyaml's own nesting limit (1000 levels). Its scanner reads up to 1024 characters ahead of the
                // parser on one line, so the limit trips before the composer sees the depth: find where the flow
                // collections on this line pass ours.
                let limit = RigNodeComposer.depthLimit
                let place =
                    YAMLText.flowNesting(passing: limit, from: depth, at: failure.mark, in: bytes) ?? failure.mark
                return RigFileIssue(
                    .tooLarge, "the file is too large: nested deeper than \(limit) levels here", at: at(place))
            }
            var message = "YAML syntax error: \(ownWording[failure.problem] ?? failure.problem)"
            if let context = failure.context, let mark = failure.contextMark {
                message += " (\(context) that starts at \(mark.line):\(mark.column))"
            }
            if YAMLText.scalar(at: failure.mark, in: bytes) == "\t" {
                message += "; YAML does not allow tabs for indentation"
            } else if YAMLText.line(failure.mark.line, in: bytes).contains("\u{FEFF}") {
                message += "; remove the byte order mark (U+FEFF) from this line"
            }
            return RigFileIssue(.syntax, message, at: at(failure.mark))
        }
    }

    /// libyaml problems reworded: typos and terms a rig file's reader should not need.
    static let ownWording: [String: String] = [
        "did not find expected hexdecimal number": "did not find the expected hexadecimal number",
        "found incompatible YAML document": "found a %YAML directive for a version other than 1.x",
        "did not find expected <document start>": "did not find the '---' that starts a document",
    ]
}

/// Positions in YAML text counted the way libyaml counts them.
enum YAMLText {
    /// libyaml's line breaks: LF, CR (CR LF counts once), NEL, LS, PS.
    static func isBreak(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "\n", "\r", "\u{85}", "\u{2028}", "\u{2029}": true
        default: false
        }
    }

    /// The line and column of the character at UTF-8 offset `offset` (the end of the text if it is past it).
    static func mark(ofByteOffset offset: Int, in bytes: [UInt8]) -> YAMLMark {
        var found = YAMLMark(line: 1, column: 1)
        walk(bytes) { _, byteOffset, mark in
            found = mark
            return byteOffset < offset
        }
        return found
    }

    /// The position just past the last character. libyaml reports the end of a file that does not end with a line
    /// break one line further down, outside the file; ``YAMLMark/clamped(to:)`` moves such marks back here.
    static func endMark(of bytes: [UInt8]) -> YAMLMark {
        var end = YAMLMark(line: 1, column: 1)
        walk(bytes) { _, _, mark in
            end = mark
            return true
        }
        return end
    }

    /// The Unicode scalar at a libyaml position, if there is one.
    static func scalar(at target: YAMLMark, in bytes: [UInt8]) -> Unicode.Scalar? {
        var found: Unicode.Scalar?
        walk(bytes) { scalar, _, mark in
            if mark == target { found = scalar }
            return mark.line <= target.line && found == nil
        }
        return found
    }

    /// The text of 1-based `line`, without its break.
    static func line(_ line: Int, in bytes: [UInt8]) -> String {
        var text = String.UnicodeScalarView()
        walk(bytes) { scalar, _, mark in
            if mark.line == line, !isBreak(scalar) { text.append(scalar) }
            return mark.line <= line
        }
        return String(text)
    }

    /// Where the flow collections (`[`, `{`) that open on `origin`'s line, from `origin` on, first nest deeper than
    /// `limit`, starting at depth `depth`; quoted scalars and comments are skipped. Nil if they never do.
    static func flowNesting(passing limit: Int, from depth: Int, at origin: YAMLMark, in bytes: [UInt8]) -> YAMLMark? {
        var depth = depth
        var quote: Unicode.Scalar?
        var escaped = false
        var previous: Unicode.Scalar = " "
        var found: YAMLMark?
        walk(bytes) { scalar, _, mark in
            guard mark.line == origin.line else { return mark.line < origin.line }
            guard mark.column >= origin.column else { return true }
            defer { previous = scalar }
            if let open = quote {
                if escaped {
                    escaped = false
                } else if open == "\"", scalar == "\\" {
                    escaped = true
                } else if scalar == open {
                    quote = nil
                }
                return true
            }
            switch scalar {
            case "[", "{":
                depth += 1
                if depth > limit {
                    found = mark
                    return false
                }
            case "]", "}":
                depth -= 1
            case "\"", "'":
                quote = scalar
            case "#" where previous == " " || previous == "\t":
                return false
            default:
                break
            }
            return true
        }
        return found
    }

    /// `U+0007`.
    static func codePoint(_ value: UInt32) -> String {
        let hex = String(value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }

    /// Calls `body` with each scalar, its UTF-8 offset and its position, then once more past the end (with U+0000),
    /// until `body` returns false.
    private static func walk(_ bytes: [UInt8], _ body: (Unicode.Scalar, Int, YAMLMark) -> Bool) {
        var mark = YAMLMark(line: 1, column: 1)
        var offset = 0
        var previousWasCR = false
        for scalar in String(decoding: bytes, as: UTF8.self).unicodeScalars {
            if previousWasCR, scalar != "\n" {
                mark = YAMLMark(line: mark.line + 1, column: 1)
            }
            guard body(scalar, offset, mark) else { return }
            offset += UTF8.width(scalar)
            previousWasCR = scalar == "\r"
            if isBreak(scalar), scalar != "\r" {
                mark = YAMLMark(line: mark.line + 1, column: 1)
            } else {
                mark.column += 1
            }
        }
        if previousWasCR { mark = YAMLMark(line: mark.line + 1, column: 1) }
        _ = body("\0", offset, mark)
    }
}
