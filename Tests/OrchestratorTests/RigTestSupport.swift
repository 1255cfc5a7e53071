import Foundation
import Testing

@testable import Orchestrator

/// Shared helpers for the rig file tests.
enum RigTesting {
    /// The suites the loader is told about in these tests.
    static let knownSuites = [
        "discovery", "handshake", "commands", "notifications", "soak", "sync", "ota", "restore", "power", "alerts",
        "pairing",
    ]

    /// Parses `yaml` as the file `rig.yaml`.
    static func load(_ yaml: String) throws(RigFileError) -> RigConfig {
        try RigFile.parse(yaml: yaml, file: "rig.yaml", knownSuites: knownSuites)
    }

    /// The issues `yaml` has; empty if it loads.
    static func issues(_ yaml: String) -> [RigFileIssue] {
        do {
            _ = try load(yaml)
            return []
        } catch {
            return error.issues
        }
    }

    /// The repository root, found from this file's path (Tests/OrchestratorTests/RigTestSupport.swift).
    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The path of a file in the repository.
    static func path(_ relative: String) -> String { repositoryRoot.appendingPathComponent(relative).path }

    /// A fresh temporary file holding `bytes`.
    static func temporaryFile(_ bytes: [UInt8], name: String = "rig.yaml") throws -> String {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("blerig-rig-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let url = directory.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return url.path
    }
}

/// A rig file with one mistake, the single issue it must produce, and where.
struct BrokenRig: Sendable, CustomTestStringConvertible {
    let name: String
    let yaml: String
    let code: RigFileIssue.Code
    /// `line:column` of the issue.
    let at: String
    let message: String

    init(_ name: String, _ yaml: String, _ code: RigFileIssue.Code, at: String, _ message: String) {
        self.name = name
        self.yaml = yaml
        self.code = code
        self.at = at
        self.message = message
    }

    var testDescription: String { name }
}
