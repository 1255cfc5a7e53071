import FuzzSupport
import RigLoader

/// The rig loader (`RigFile.parse(yaml:file:knownSuites:)`: libyaml's events, the node composer, the rig decoders),
/// as `blerig validate` and `blerig run` read a rig file; Sources/Orchestrator/Rig/README.md says what it checks.
///
/// Any text loads or throws a `RigFileError` whose issues each sit at a line and column inside the text, with a
/// message of one line (a value quoted back has its control characters and line separators escaped). A rig that
/// loads has at least one board. Suite options are read by the suites themselves, beyond this target.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRig(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: fuzzInput(data, size), as: UTF8.self)
    let rig: RigConfig
    do {
        rig = try RigFile.parse(yaml: text, file: "fuzz.yaml", knownSuites: knownSuites)
    } catch {
        checkIssues(error, text: text)
        return 0
    }
    invariant(!rig.boards.isEmpty, "\(text.debugDescription) loaded without boards")
    return 0
}

/// The orchestrator's suites (Orchestrator's SuiteCatalog), as `blerig validate` passes them.
private let knownSuites = [
    "discovery", "handshake", "commands", "notifications", "alerts", "pairing", "soak", "restore", "ota", "sync",
    "power",
]

private func checkIssues(_ error: RigFileError, text: String) {
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
