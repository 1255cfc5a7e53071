import FuzzSupport
import LoaderChecks
import RigLoader

/// The profile loader (`ProfileFile.parse(yaml:file:)`, docs/profiles.md), as a rig's `profile: {file: …}` reads a
/// board described as data.
///
/// Any text loads or throws a `RigFileError` whose issues each sit at a line and column inside the text, with a
/// message of one line.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzProfile(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: fuzzInput(data, size), as: UTF8.self)
    do {
        _ = try ProfileFile.parse(yaml: text, file: "fuzz.yaml")
    } catch {
        checkIssues(error, text: text)
    }
    return 0
}
