import Foundation
import Testing

extension XMLLint {
    /// Maven Surefire's own schema (`Fixtures/surefire-test-report-3.0.xsd`): it describes one `<testsuite>` root
    /// holding testcases, and is stricter than junit-10 about what a testcase holds and in which order
    /// (`<flakyFailure>` and friends need a `<stackTrace>`).
    static var surefireSchema: URL { Fixtures.directory.appendingPathComponent("surefire-test-report-3.0.xsd") }

    /// The nodes `expression` selects in `document`, as `xmllint --xpath` prints them.
    static func xpath(_ expression: String, in document: String) throws -> String {
        let xmllint = try #require(executable, Comment(rawValue: missingMessage))
        let file = Fixtures.temporaryFile("doc.xml")
        try Data(document.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let process = Process()
        process.executableURL = xmllint
        process.arguments = ["--xpath", expression, file.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return output
    }

    /// Validates every `<testcase>` of a junit.xml document against Surefire's schema: the testcases are taken
    /// out by XPath and put in the one `<testsuite>` root Surefire's schema wants.
    static func validateTestcasesAgainstSurefire(_ document: String) throws -> Verdict {
        let testcases = try xpath("//testcase", in: document)
        let wrapped =
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            + "<testsuite name=\"all\" tests=\"0\" errors=\"0\" skipped=\"0\" failures=\"0\">\n\(testcases)\n</testsuite>\n"
        return try validate(wrapped, schema: surefireSchema)
    }
}
