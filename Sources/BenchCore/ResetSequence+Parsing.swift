extension ResetSequence {
    /// Parses esptool's grammar (see ``ResetSequence``). Stricter than esptool, which evaluates the arguments as
    /// Python: a line is `0` or `1`, a wait is a plain decimal number of seconds, above 0 and at most
    /// ``longestWait``, and nothing else (no spaces) may appear.
    public init(parsing text: String) throws(ResetSequenceError) {
        let scalars = Array(text.unicodeScalars)
        guard !scalars.isEmpty else {
            throw ResetSequenceError(column: 1, "a reset sequence needs at least one command, such as R1|W0.1|R0")
        }
        var steps: [Step] = []
        var start = 0
        while start <= scalars.count {
            let end = scalars[start...].firstIndex(of: "|") ?? scalars.count
            steps.append(try Self.command(scalars[start..<end], column: start + 1))
            start = end + 1
        }
        self.init(steps)
    }

    private static func command(_ command: ArraySlice<Unicode.Scalar>, column: Int) throws(ResetSequenceError) -> Step {
        guard let code = command.first else {
            throw ResetSequenceError(column: column, "empty command (two '|' in a row, or one at an end)")
        }
        let argument = command.dropFirst()
        let argumentColumn = column + 1
        switch code {
        case "D": return .dtr(try line(argument, column: argumentColumn, name: "DTR"))
        case "R": return .rts(try line(argument, column: argumentColumn, name: "RTS"))
        case "U":
            guard let comma = argument.firstIndex(of: ",") else {
                throw ResetSequenceError(
                    column: argumentColumn, "U sets both lines: write U<dtr>,<rts> such as U1,0, found "
                        + quoted(command))
            }
            let dtr = try line(argument[..<comma], column: argumentColumn, name: "DTR")
            let rts = try line(
                argument[(comma + 1)...], column: argumentColumn + comma - argument.startIndex + 1, name: "RTS")
            return .lines(dtr: dtr, rts: rts)
        case "W": return .wait(try wait(argument, column: argumentColumn))
        default:
            let hint = "druw".unicodeScalars.contains(code) ? "; commands are upper case" : ""
            throw ResetSequenceError(
                column: column, "unknown command '\(Character(code))' (expected D, R, U or W\(hint))")
        }
    }

    private static func line(
        _ argument: ArraySlice<Unicode.Scalar>, column: Int, name: String
    ) throws(ResetSequenceError) -> Bool {
        switch String(String.UnicodeScalarView(argument)) {
        case "1": return true
        case "0": return false
        case "": throw ResetSequenceError(column: column, "\(name) needs 0 or 1 after it")
        default:
            throw ResetSequenceError(
                column: column, "\(name) is set with 0 or 1, found \(quoted(argument))")
        }
    }

    private static func wait(_ argument: ArraySlice<Unicode.Scalar>, column: Int) throws(ResetSequenceError) -> Duration {
        let text = String(String.UnicodeScalarView(argument))
        if let bad = argument.firstIndex(where: { !("0"..."9").contains($0) && $0 != "." }) {
            throw ResetSequenceError(
                column: column + bad - argument.startIndex,
                "W takes seconds as a decimal number such as W0.1, found \(quoted(argument))")
        }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard !text.isEmpty, parts.count <= 2, !(parts[0].isEmpty && (parts.count < 2 || parts[1].isEmpty)),
            let whole = parts[0].isEmpty ? 0 : Int64(parts[0].prefix(6))
        else {
            throw ResetSequenceError(
                column: column, "W takes seconds as a decimal number such as W0.1, found \(quoted(argument))")
        }
        let fraction = parts.count == 2 ? String(parts[1]) : ""
        guard fraction.count <= 6 else {
            throw ResetSequenceError(column: column, "W is precise to the microsecond, found \(quoted(argument))")
        }
        let micros = Int64(fraction + String(repeating: "0", count: 6 - fraction.count)) ?? 0
        let duration = Duration.seconds(whole) + .microseconds(micros)
        guard duration > .zero else { throw ResetSequenceError(column: column, "a wait must be longer than 0 s") }
        guard duration <= longestWait, parts[0].count <= 6 else {
            throw ResetSequenceError(
                column: column,
                "W\(text) waits longer than \(longestWait.components.seconds) s; W counts seconds (W0.1 is 100 ms)")
        }
        return duration
    }

    private static func quoted(_ scalars: ArraySlice<Unicode.Scalar>) -> String {
        "'\(String(String.UnicodeScalarView(scalars)))'"
    }
}
