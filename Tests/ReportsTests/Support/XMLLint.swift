import Foundation
import Testing

/// Runs libxml2's `xmllint` to validate documents against an XML schema.
enum XMLLint {
    struct Verdict {
        var valid: Bool
        var output: String
    }

    /// The `xmllint` on PATH, or nil.
    static var executable: URL? {
        find(searchPath: ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
    }

    /// The first executable `xmllint` in a colon-separated list of directories.
    static func find(searchPath: String) -> URL? {
        searchPath.split(separator: ":").lazy
            .map { URL(fileURLWithPath: String($0)).appendingPathComponent("xmllint") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    static let missingMessage =
        "xmllint is not installed, so JUnit output cannot be checked against junit-10.xsd: install libxml2-utils "
        + "(apt-get install libxml2-utils) or run the tests with `make test`"

    /// Validates `document` against `schema` with `xmllint --noout --schema`.
    static func validate(_ document: String, schema: URL) throws -> Verdict {
        let xmllint = try #require(executable, Comment(rawValue: missingMessage))
        let file = Fixtures.temporaryFile("junit.xml")
        try Data(document.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let process = Process()
        process.executableURL = xmllint
        process.arguments = ["--noout", "--schema", schema.path, file.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return Verdict(valid: process.terminationStatus == 0, output: output)
    }
}
