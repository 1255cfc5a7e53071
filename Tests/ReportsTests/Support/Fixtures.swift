import Foundation
import Testing

/// Files next to the tests: the JUnit schema and golden outputs. The test target declares no resources, so
/// they are found from this source file's path.
enum Fixtures {
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures")

    static var schema: URL { directory.appendingPathComponent("junit-10.xsd") }

    /// Compares `actual` with the golden file `name`. With `BLERIG_RECORD_GOLDEN=1` in the environment it
    /// writes the file instead (and still records an issue, so a recording run is never mistaken for a pass).
    static func expectGolden(
        _ actual: String, named name: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let url = directory.appendingPathComponent(name)
        if ProcessInfo.processInfo.environment["BLERIG_RECORD_GOLDEN"] == "1" {
            try Data(actual.utf8).write(to: url, options: .atomic)
            Issue.record(
                "recorded golden file \(name); run again without BLERIG_RECORD_GOLDEN", sourceLocation: sourceLocation)
            return
        }
        guard let data = FileManager.default.contents(atPath: url.path) else {
            Issue.record(
                "golden file \(url.path) is missing; record it with BLERIG_RECORD_GOLDEN=1 and review it",
                sourceLocation: sourceLocation)
            return
        }
        let expected = String(decoding: data, as: UTF8.self)
        guard actual != expected else { return }
        let actualLines = actual.split(separator: "\n", omittingEmptySubsequences: false)
        let expectedLines = expected.split(separator: "\n", omittingEmptySubsequences: false)
        let first =
            zip(actualLines, expectedLines).enumerated().first { $0.element.0 != $0.element.1 }?.offset
            ?? min(actualLines.count, expectedLines.count)
        let want = first < expectedLines.count ? String(expectedLines[first]) : "<end of file>"
        let got = first < actualLines.count ? String(actualLines[first]) : "<end of output>"
        let message =
            "output differs from golden file \(name) at line \(first + 1):\n  expected: \(want)\n  actual:   \(got)\n"
            + "If the change is intended, re-record with BLERIG_RECORD_GOLDEN=1 and review the diff."
        Issue.record(Comment(rawValue: message), sourceLocation: sourceLocation)
    }

    /// A fresh temporary file path for one test.
    static func temporaryFile(_ name: String) -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("blerig-reports-\(UUID().uuidString)-\(name)")
    }
}
