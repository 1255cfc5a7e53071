import Foundation

/// Loads rig files: YAML checked on load, every problem reported with `file:line:column`.
///
/// ```swift
/// let rig = try RigFile.load(contentsOf: "rigs/virtual.yaml", knownSuites: ["discovery", "handshake"])
/// ```
/// The loader reads the whole file before it throws, so a ``RigFileError`` lists every problem in it: syntax
/// errors (which stop the reading), duplicate keys, unknown keys (with the nearest known key), missing keys,
/// values of the wrong type or out of range, unknown profiles and suites, conflicting boards. See
/// Sources/Orchestrator/Rig/README.md for the format.
public enum RigFile {
    /// Reads, parses and checks the rig file at `path`. `knownSuites` are the suites the orchestrator has, in the
    /// order they are listed in messages.
    /// A `gates:` file that does not exist is an error at the rig's `gates:` (the Gates target reads the file).
    public static func load(contentsOf path: String, knownSuites: [String]) throws(RigFileError) -> RigConfig {
        try parse(
            yaml: readText(contentsOf: path), file: path, knownSuites: knownSuites, checkSuites: { _, _ in },
            checkGates: checkGatesExist)
    }

    /// Records an issue at `gates:` when the file it names does not exist, beside the file's other problems.
    static func checkGatesExist(_ gates: RigConfig.FileReference, diagnostics: RigDiagnostics) {
        guard !FileManager.default.fileExists(atPath: gates.path) else { return }
        diagnostics.record(
            .unreadableFile,
            "gates file \(RigWording.quoted(gates.path)) does not exist (paths are relative to the working directory)",
            at: gates.location)
    }

    /// Parses and checks rig file text; `file` names it in locations.
    public static func parse(yaml text: String, file: String, knownSuites: [String]) throws(RigFileError)
        -> RigConfig
    {
        try parse(yaml: text, file: file, knownSuites: knownSuites, checkSuites: { _, _ in }, checkGates: { _, _ in })
    }

    /// ``parse(yaml:file:knownSuites:)`` that also hands the suites selected (those with known names) to
    /// `checkSuites`, and the gates file named to `checkGates`, with the load's diagnostics, whatever else is wrong
    /// in the file: what they record joins the file's other problems, so one error lists them all.
    static func parse(
        yaml text: String, file: String, knownSuites: [String],
        checkSuites: ([SuiteSelection], RigDiagnostics) -> Void,
        checkGates: (RigConfig.FileReference, RigDiagnostics) -> Void
    ) throws(RigFileError) -> RigConfig {
        let diagnostics = RigDiagnostics()
        let root = try RigNode.parse(yaml: text, file: file, diagnostics: diagnostics)
        let config = RigConfig.decode(
            root, knownSuites: knownSuites, diagnostics: diagnostics, checkSuites: checkSuites,
            checkGates: checkGates)
        try diagnostics.throwIfAny(file: file)
        guard let config else {
            // decode returns nil only after recording an issue; this keeps the promise if that ever breaks.
            throw RigFileError(RigFileIssue(.syntax, "the rig file could not be read", at: root.location))
        }
        return config
    }

    /// The text of a YAML file the orchestrator reads (a rig file, a gates file): UTF-8, one issue per problem.
    public static func readText(contentsOf path: String) throws(RigFileError) -> String {
        let whole = SourceLocation.wholeFile(path)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw RigFileError(RigFileIssue(.unreadableFile, "no such file", at: whole))
        }
        guard !isDirectory.boolValue else {
            throw RigFileError(RigFileIssue(.unreadableFile, "is a directory, not a YAML file", at: whole))
        }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw RigFileError(
                RigFileIssue(.unreadableFile, "cannot be read: \(error.localizedDescription)", at: whole))
        }
        return try decodeUTF8(Array(data), file: path)
    }

    /// `bytes` as a String, or an issue at the first byte that is not UTF-8.
    static func decodeUTF8(_ bytes: [UInt8], file: String) throws(RigFileError) -> String {
        if let text = String(validating: bytes, as: UTF8.self) { return text }
        var line = 1
        var column = 1
        var decoder = UTF8()
        var iterator = bytes.makeIterator()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar):
                if scalar == "\n" {
                    line += 1
                    column = 1
                } else {
                    column += 1
                }
            case .emptyInput:
                return String(decoding: bytes, as: UTF8.self)
            case .error:
                throw RigFileError(
                    RigFileIssue(
                        .unreadableFile, "the file is not UTF-8 text (invalid byte here)",
                        at: SourceLocation(file: file, line: line, column: column)))
            }
        }
    }
}
