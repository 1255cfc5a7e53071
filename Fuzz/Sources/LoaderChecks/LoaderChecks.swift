import FuzzSupport
import RigLoader

/// What every load error of a YAML file (a rig, a profile) must be: at least one issue, each at a line and column
/// inside the text of the file the loader was given, with a message of one line.
public func checkIssues(_ error: RigFileError, text: String) {
    invariant(!error.issues.isEmpty, "a RigFileError without issues")
    // libyaml breaks lines at CR, LF, CRLF, NEL, LS and PS; one more line for a position at the very end. One pass
    // over the scalars counts both (filtering into an array against a string of breaks was a fifth of the run).
    var lineBreaks = 0
    var scalars = 0
    for scalar in text.unicodeScalars {
        scalars += 1
        if isLineBreak(scalar) { lineBreaks += 1 }
    }
    let lastLine = lineBreaks + 1
    for issue in error.issues {
        let place = issue.location
        invariant(place.file == "fuzz.yaml", "\(issue) names another file")
        invariant(
            (1...lastLine).contains(place.line) && (1...(scalars + 1)).contains(place.column),
            "\(issue) lies outside the text (\(lastLine) lines, \(scalars) scalars): \(text.debugDescription)")
        invariant(!issue.message.isEmpty, "\(issue) has no message")
        invariant(
            !issue.message.unicodeScalars.contains(where: isLineBreak),
            "a message of more than one line: \(issue.message.debugDescription)")
    }
    // An LF byte anywhere, even inside a CRLF grapheme (which a Character search for "\n" would not see).
    invariant(!error.description.utf8.contains(0x0A), "an error description of more than one line: \(error)")
}

/// CR, LF, NEL, LS or PS: what libyaml breaks a line at.
private func isLineBreak(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0x0D, 0x0A, 0x85, 0x2028, 0x2029: true
    default: false
    }
}
