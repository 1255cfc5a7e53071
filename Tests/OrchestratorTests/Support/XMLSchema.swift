import Foundation
import Testing

/// Validates XML files against the Jenkins xunit junit-10.xsd with xmllint (an independent checker).
enum XMLSchema {
    static let junitSchema = RigTesting.path("Tests/ReportsTests/Fixtures/junit-10.xsd")

    /// Records an issue unless `path` validates; xmllint's complaint is in the issue.
    static func expectValid(_ path: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let xmllint = try #require(
            ["/usr/bin/xmllint", "/usr/local/bin/xmllint"].first { FileManager.default.isExecutableFile(atPath: $0) },
            "xmllint is missing: install libxml2-utils (make test does)", sourceLocation: sourceLocation)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: xmllint)
        process.arguments = ["--noout", "--schema", junitSchema, path]
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let complaint = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(path): \(complaint)", sourceLocation: sourceLocation)
    }
}
