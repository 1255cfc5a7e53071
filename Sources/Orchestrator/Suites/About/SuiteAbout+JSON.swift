import Foundation

/// `blerig suites --json`: the descriptions as a JSON array with sorted keys.
public enum SuiteAboutJSON {
    private struct Document: Encodable {
        var name: String
        var summary: String
        var options: [OptionDocument]
        var metrics: [MetricDocument]
    }

    private struct OptionDocument: Encodable {
        var key: String
        var `default`: String
        var meaning: String
    }

    private struct MetricDocument: Encodable {
        var name: String
        var unit: String
        var statistics: [String]
        var definition: String
    }

    public static func encode(_ abouts: [SuiteAbout]) throws -> String {
        let documents = abouts.map { about in
            Document(
                name: about.name, summary: about.summary,
                options: about.options.map { OptionDocument(key: $0.key, default: $0.defaultValue, meaning: $0.meaning) },
                metrics: about.metrics.map {
                    MetricDocument(
                        name: $0.name, unit: $0.unit.rawValue, statistics: $0.statistics, definition: $0.definition)
                })
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(documents), as: UTF8.self)
    }
}
