import FuzzSupport
import LoaderChecks
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
