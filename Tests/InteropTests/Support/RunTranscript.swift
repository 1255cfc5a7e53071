/// What a `blerig run` printed, told verdicts first, for a failed expectation's message.
///
/// A campaign prints hundreds of lines, and a CI log that keeps only the start and the end of a long message
/// cuts out the middle, where the failed check is. So the message opens with the lines that say what went
/// wrong (the checks that failed, erred or were interrupted, and blerig's own complaints), then the whole text.
struct RunTranscript: CustomStringConvertible {
    let text: String

    init(_ text: String) { self.text = text }

    /// The lines of a broken verdict: `[board] suite / check: FAILED: …`, `ERROR: …`, `INTERRUPTED: …`, and
    /// blerig's complaints on standard error (`blerig: …`).
    var verdictLines: [Substring] {
        text.split(separator: "\n").filter { line in
            line.hasPrefix("blerig:")
                || (line.hasPrefix("[")
                    && [": FAILED: ", ": ERROR: ", ": INTERRUPTED: "].contains { line.contains($0) })
        }
    }

    var description: String {
        let verdicts = verdictLines
        let head = verdicts.isEmpty ? "no check failed" : verdicts.joined(separator: "\n")
        return "\(head)\n--- the whole output ---\n\(text)"
    }
}
