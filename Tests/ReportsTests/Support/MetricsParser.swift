import Foundation
import Testing

/// prometheus_client's parsers (`Fixtures/check_metrics.py` in the venv `make metrics-deps` sets up, at
/// `.venv-metrics/` in the package root): an independent reader of `metrics.prom`.
enum MetricsParser {
    struct Family: Decodable {
        var name: String
        var type: String
        var unit: String
        var help: String
        var samples: [Sample]
    }

    struct Sample: Decodable {
        var name: String
        var labels: [String: String]
        var value: Double
    }

    static let python = Fixtures.directory.deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent(".venv-metrics/bin/python")

    static let missingMessage =
        "prometheus_client is not installed at .venv-metrics/: run `make metrics-deps` (or `make test`)"

    /// Parses `text` as `format` (`openmetrics` or `prometheus`); the parser's message when it refuses it.
    static func parse(_ text: String, format: String) async throws -> Result<[Family], ParseFailure> {
        try #require(FileManager.default.isExecutableFile(atPath: python.path), Comment(rawValue: missingMessage))
        return try await offPool { try run(text, format: format) }
    }

    private static func run(_ text: String, format: String) throws -> Result<[Family], ParseFailure> {
        let file = Fixtures.temporaryFile("metrics.prom")
        try Data(text.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let process = Process()
        process.executableURL = python
        process.arguments = [Fixtures.directory.appendingPathComponent("check_metrics.py").path, format, file.path]
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return .failure(ParseFailure(message: message)) }
        let decoder = JSONDecoder()
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(
            positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return .success(try decoder.decode([Family].self, from: data))
    }

    struct ParseFailure: Error {
        var message: String
    }
}
