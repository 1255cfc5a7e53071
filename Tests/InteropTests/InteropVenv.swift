import Foundation
import Testing

/// Where the interop tier's Python (rootcanal and Bumble) is: `$BLERIG_INTEROP_VENV`, or `.venv-interop/` at the
/// repository root (`make interop-deps` creates it). Without it the tier is skipped on a laptop and fails in CI.
enum InteropVenv {
    static let repository = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static var directory: URL {
        if let explicit = ProcessInfo.processInfo.environment["BLERIG_INTEROP_VENV"] { return URL(filePath: explicit) }
        return repository.appending(path: ".venv-interop")
    }

    static var python: URL { directory.appending(path: "bin/python") }

    static var available: Bool {
        FileManager.default.isExecutableFile(atPath: python.path)
            || ProcessInfo.processInfo.environment["CI"] == "true"
    }

    static let skipReason: Comment = "the interop venv is missing: run `make interop-deps` (in CI this fails instead)"

    static var peers: URL { repository.appending(path: "Tests/InteropTests/Peers") }

    /// Runs a script from `Peers/` to completion and returns its standard output; throws with its standard
    /// error when it fails.
    static func runPython(script: String, arguments: [String] = []) throws -> String {
        guard FileManager.default.isExecutableFile(atPath: python.path) else {
            throw InteropError("no interop venv at \(directory.path): run `make interop-deps`")
        }
        let process = Process()
        process.executableURL = python
        process.arguments = [peers.appending(path: script).path] + arguments
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let output = out.fileHandleForReading.readDataToEndOfFile()
        let errors = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw InteropError("\(script) exited with \(process.terminationStatus): \(String(decoding: errors, as: UTF8.self))")
        }
        return String(decoding: output, as: UTF8.self)
    }
}

struct InteropError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
