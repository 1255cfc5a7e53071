import Foundation
import Testing

@testable import Orchestrator

/// The documentation in `docs/` and the README kept in step with the code: exit statuses, metric names, suites,
/// links, the README's size, and code comments that point into the repository rather than outside it.
@Suite("Documentation")
struct DocumentationTests {
    static func read(_ relative: String) throws -> String {
        try String(contentsOfFile: RigTesting.path(relative), encoding: .utf8)
    }

    static var markdownFiles: [String] {
        let docs = (try? FileManager.default.contentsOfDirectory(atPath: RigTesting.path("docs"))) ?? []
        return ["README.md"] + docs.filter { $0.hasSuffix(".md") }.sorted().map { "docs/\($0)" }
    }

    @Test("docs/cli.md documents exactly the exit statuses blerig uses")
    func exitStatuses() throws {
        #expect(try Self.read("docs/cli.md").contains("```\n\(ExitStatus.table)\n```"))
        #expect(ExitStatus.allCases.map(\.rawValue) == [0, 1, 2, 3, 4, 130])
    }

    /// Every `metric: "…"` the orchestrator reports (suites, preflight, the scheduler) has a row in the metrics
    /// table of docs/architecture.md.
    @Test("docs/architecture.md defines every metric the orchestrator reports")
    func everyMetricDefined() throws {
        let architecture = try Self.read("docs/architecture.md")
        let pattern = try Regex(#"metric: "([a-z0-9_.]+)""#)
        var metrics: Set<String> = []
        for file in try ArchitectureTests.swiftFiles(under: "Sources/Orchestrator") {
            let text = try String(contentsOfFile: file, encoding: .utf8)
            for match in text.matches(of: pattern) {
                if let name = match.output[1].substring { metrics.insert(String(name)) }
            }
        }
        // Not vacuous: the suites' metrics were found.
        #expect(metrics.isSuperset(of: ["handshake.ready_ms", "link.drop_rate", "ota.efficiency", "sync.latency_s"]))
        let missing = metrics.sorted().filter { !architecture.contains("| `\($0)` |") }
        #expect(missing.isEmpty, "docs/architecture.md has no row for \(missing.joined(separator: ", "))")
    }

    @Test("docs/suites.md has a section for every suite blerig has")
    func everySuiteDescribed() throws {
        let suites = try Self.read("docs/suites.md")
        #expect(!Campaign.suiteNames.isEmpty)
        for name in Campaign.suiteNames {
            #expect(
                suites.contains("\n## \(name)\n") || suites.contains("\n## \(name) ("),
                "docs/suites.md has no '## \(name)' section")
        }
    }

    @Test("the README stays short: what blerig is, the two commands, a first run, where to read on")
    func readmeIsShort() throws {
        let readme = try Self.read("README.md")
        #expect(readme.utf8.count <= 8 * 1024, "README.md is \(readme.utf8.count) bytes")
        for part in ["make run", "make test", "## Real hardware", "docs/rig-host.md"] {
            #expect(readme.contains(part), "README.md lacks \(part)")
        }
    }

    /// Relative links in the README and docs/ point to files that exist, and `#anchors` to headings that exist
    /// (GitHub's anchors: lower case, punctuation dropped, spaces as hyphens).
    @Test("links in the README and docs/ resolve", arguments: markdownFiles)
    func linksResolve(file: String) throws {
        let text = try Self.read(file)
        let base = URL(fileURLWithPath: RigTesting.path(file)).deletingLastPathComponent()
        let link = try Regex(#"\]\(([^)\s]+)\)"#)
        var checked = 0
        for match in text.matches(of: link) {
            guard let target = match.output[1].substring.map(String.init), !target.contains("://") else { continue }
            let parts = target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            let path =
                parts[0].isEmpty ? URL(fileURLWithPath: RigTesting.path(file)) : base.appendingPathComponent(parts[0])
            #expect(FileManager.default.fileExists(atPath: path.path), "\(file): \(target) does not exist")
            if parts.count == 2, path.pathExtension == "md", let linked = try? String(contentsOf: path, encoding: .utf8)
            {
                #expect(Self.anchors(in: linked).contains(parts[1]), "\(file): no heading for \(target)")
            }
            checked += 1
        }
        #expect(checked > 0 || file == "docs/benchmarks.md", "\(file) links nowhere")
    }

    static func anchors(in markdown: String) -> Set<String> {
        var anchors: Set<String> = []
        for line in markdown.split(separator: "\n") where line.hasPrefix("#") {
            let title = line.drop { $0 == "#" }.trimmingCharacters(in: .whitespaces).lowercased()
            let kept = title.unicodeScalars.filter {
                CharacterSet.alphanumerics.contains($0) || $0 == " " || $0 == "-" || $0 == "_"
            }
            anchors.insert(String(String.UnicodeScalarView(kept)).replacingOccurrences(of: " ", with: "-"))
        }
        return anchors
    }

    /// Design notes outside the repository are not there for a reader of a clone: comments point into `docs/`.
    @Test("code and build files never point outside the repository for documentation")
    func commentsPointIntoTheRepository() throws {
        let outside = try Regex(#"(device-profiles|ble-facts|bench-facts|kernel-tier)\.md|\.\./shared|shared/design"#)
        var files = ["Package.swift", "Makefile"].map(RigTesting.path)
        for root in ["Sources", "Tests", "rigs"] {
            let enumerator = try #require(FileManager.default.enumerator(atPath: RigTesting.path(root)))
            for case let relative as String in enumerator
            where [".swift", ".md", ".py", ".yaml"].contains(where: { relative.hasSuffix($0) }) {
                files.append(RigTesting.path("\(root)/\(relative)"))
            }
        }
        files.removeAll { $0.hasSuffix("DocumentationTests.swift") }
        #expect(files.count > 100)
        for file in files {
            let text = try String(contentsOfFile: file, encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            where line.replacingOccurrences(of: "docs/kernel-tier.md", with: "").contains(outside)
                || line.replacingOccurrences(of: "docs/architecture.md", with: "").contains("architecture.md")
            {
                Issue.record("\(file):\(number + 1): points outside the repository: \(line)")
            }
        }
    }
}
