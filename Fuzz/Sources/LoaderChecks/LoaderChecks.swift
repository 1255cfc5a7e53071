import FuzzSupport
import RigLoader

/// What every load error of a YAML file (a rig, a profile) must be: at least one issue, each at a line and column
/// inside the text of the file the loader was given, with a message of one line.
public func checkIssues(_ error: RigFileError, text: String) {
    invariant(!error.issues.isEmpty, "a RigFileError without issues")
    // libyaml breaks lines at CR, LF, CRLF, NEL, LS and PS; one more line for a position at the very end.
    let lineBreaks = text.unicodeScalars.filter { "\r\n\u{85}\u{2028}\u{2029}".unicodeScalars.contains($0) }.count
    let lastLine = lineBreaks + 1
    let scalars = text.unicodeScalars.count
    for issue in error.issues {
        let place = issue.location
        invariant(place.file == "fuzz.yaml", "\(issue) names another file")
        invariant(
            (1...lastLine).contains(place.line) && (1...(scalars + 1)).contains(place.column),
            "\(issue) lies outside the text (\(lastLine) lines, \(scalars) scalars): \(text.debugDescription)")
        invariant(!issue.message.isEmpty, "\(issue) has no message")
        invariant(
            !issue.message.unicodeScalars.contains { "\r\n\u{85}\u{2028}\u{2029}".unicodeScalars.contains($0) },
            "a message of more than one line: \(issue.message.debugDescription)")
    }
    invariant(!error.description.contains("\n"), "an error description of more than one line: \(error)")
}
