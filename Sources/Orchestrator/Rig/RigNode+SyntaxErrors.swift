import Yams

/// Yams' parse errors as issues in the rig file format: one line, `file:line:column`.
extension RigNode {
    static func syntaxIssue(_ error: YamlError, file: String, text: String) -> RigFileIssue {
        func at(_ mark: Mark) -> SourceLocation { SourceLocation(file: file, line: mark.line, column: mark.column) }
        switch error {
        case .scanner(let context, let problem, let mark, _), .parser(let context, let problem, let mark, _),
            .composer(let context, let problem, let mark, _):
            if context?.text == "expected a single document in the stream" {
                return RigFileIssue(.syntax, "a second YAML document starts here; a rig file holds one", at: at(mark))
            }
            var message = "YAML syntax error: \(problem)"
            if let context {
                message += " (\(context.text) that starts at \(context.mark.line):\(context.mark.column))"
            }
            if character(at: mark, in: text) == "\t" { message += "; YAML does not allow tabs for indentation" }
            return RigFileIssue(.syntax, message, at: at(mark))
        case .reader(let problem, let offset, let value, _):
            let place = offset.flatMap { position(ofCharacterOffset: $0, in: text) } ?? Position(line: 1, column: 1)
            let hex = String(UInt32(max(value, 0)), radix: 16, uppercase: true)
            let character = value >= 0 ? " (U+\(String(repeating: "0", count: max(0, 4 - hex.count)) + hex))" : ""
            return RigFileIssue(
                .syntax, "YAML syntax error: \(problem)\(character)",
                at: SourceLocation(file: file, line: place.line, column: place.column))
        default:
            let firstLine = String(describing: error).split(separator: "\n").first.map(String.init) ?? "unknown"
            return RigFileIssue(.syntax, "YAML error: \(firstLine)", at: SourceLocation(file: file, line: 1, column: 1))
        }
    }

    /// The Unicode scalar at a libyaml position, if there is one.
    static func character(at mark: Mark, in text: String) -> Unicode.Scalar? {
        let scalars = Array(text.unicodeScalars)
        guard let start = KeyRenaming.lineStart(mark.line, in: scalars) else { return nil }
        let index = start + mark.column - 1
        return index < scalars.count ? scalars[index] : nil
    }

    /// The line and column (in Unicode scalars) of the `offset`-th Character of `text`.
    static func position(ofCharacterOffset offset: Int, in text: String) -> Position? {
        guard let index = text.index(text.startIndex, offsetBy: offset, limitedBy: text.endIndex) else { return nil }
        var line = 1
        var column = 1
        var previous: Unicode.Scalar?
        for scalar in text.unicodeScalars[..<index] {
            if KeyRenaming.isBreak(scalar), !(scalar == "\n" && previous == "\r") {
                line += 1
                column = 1
            } else if !(scalar == "\n" && previous == "\r") {
                column += 1
            }
            previous = scalar
        }
        return Position(line: line, column: column)
    }
}

/// Renames one mapping key in YAML text without moving anything else (see ``RigNode/parse(yaml:file:diagnostics:)``).
enum KeyRenaming {
    /// libyaml's line breaks: LF, CR (CR LF counts once), NEL, LS, PS.
    static func isBreak(_ scalar: Unicode.Scalar) -> Bool {
        ["\n", "\r", "\u{85}", "\u{2028}", "\u{2029}"].contains(scalar)
    }

    /// The index in `scalars` where 1-based `line` starts.
    static func lineStart(_ line: Int, in scalars: [Unicode.Scalar]) -> Int? {
        var current = 1
        var index = 0
        while current < line {
            guard index < scalars.count else { return nil }
            let scalar = scalars[index]
            index += 1
            if scalar == "\r", index < scalars.count, scalars[index] == "\n" { index += 1 }
            if isBreak(scalar) { current += 1 }
        }
        return index
    }

    /// `text` with the key `key` written at `position` (plain, or quoted without escapes) replaced by private-use
    /// characters unique to `attempt`; nil if the text there is not the key as expected.
    static func rename(_ key: String, at position: RigNode.Position, in text: String, attempt: Int) -> String? {
        var scalars = Array(text.unicodeScalars)
        guard let lineStart = lineStart(position.line, in: scalars) else { return nil }
        var start = lineStart + position.column - 1
        let keyScalars = Array(key.unicodeScalars)
        guard !keyScalars.isEmpty, start < scalars.count else { return nil }
        if scalars[start] == "\"" || scalars[start] == "'" {
            let quote = scalars[start]
            guard !key.unicodeScalars.contains(quote), !key.unicodeScalars.contains("\\") else { return nil }
            start += 1
            let end = start + keyScalars.count
            guard end < scalars.count, scalars[end] == quote else { return nil }
        }
        guard start + keyScalars.count <= scalars.count,
            Array(scalars[start..<start + keyScalars.count]) == keyScalars
        else { return nil }
        for offset in keyScalars.indices {
            let digit = offset < 2 ? (attempt / (offset == 0 ? 1 : 6_400)) % 6_400 : 0
            scalars[start + offset] = Unicode.Scalar(0xE000 + UInt32(digit))!
        }
        var view = String.UnicodeScalarView()
        view.append(contentsOf: scalars)
        return String(view)
    }
}
