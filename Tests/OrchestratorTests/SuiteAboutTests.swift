import Benches
import Foundation
import Reports
import Testing

@testable import Orchestrator

/// `blerig suites` is read from the suites, and held to what they do: the options listed are the options read, and
/// the metrics listed are the metrics reported, with their units and definitions.
@Suite("Suite descriptions")
struct SuiteAboutTests {
    @Test("every suite is described, in the catalog's order")
    func everySuite() {
        #expect(SuiteAbout.all.map(\.name) == SuiteCatalog.names)
        #expect(SuiteAbout.all.allSatisfy { !$0.summary.isEmpty && !$0.metrics.isEmpty })
    }

    @Test("the options listed are exactly the options each suite reads, plus check_timeout_s")
    func optionsAreTheOnesRead() {
        for type in SuiteCatalog.suites {
            let listed = SuiteAbout.all.first { $0.name == type.name }?.options.map(\.key) ?? []
            #expect(listed == type.optionKeys + [SuiteCatalog.checkTimeoutKey], "\(type.name)")
        }
    }

    @Test("the listing fits 100 columns and holds every option and metric")
    func listing() {
        for about in [SuiteAbout.everyBoard] + SuiteAbout.all {
            let lines = about.lines
            #expect(lines.allSatisfy { $0.count <= SuiteAbout.width }, "\(about.name): \(lines.map(\.count).max() ?? 0)")
            let text = lines.joined(separator: " ").split(separator: " ").joined(separator: " ")
            for option in about.options { #expect(text.contains("\(option.key) (\(option.defaultValue))")) }
            for metric in about.metrics {
                #expect(text.contains(metric.definition.split(separator: " ").joined(separator: " ")), "\(metric.name)")
            }
        }
    }

    @Test("defaults come from a suite built without options")
    func defaultsFromTheCode() throws {
        let handshake = try #require(SuiteAbout.named("handshake"))
        #expect(handshake.options.first { $0.key == "connections" }?.defaultValue == "20")
        #expect(handshake.options.first { $0.key == "check_timeout_s" }?.defaultValue == "2520 s")
        let sync = try #require(SuiteAbout.named("sync"))
        #expect(sync.options.first { $0.key == "offline_days" }?.defaultValue == "3 days")
        #expect(sync.options.first { $0.key == "outage_min" }?.defaultValue == "5 min")
    }

    /// rigs/virtual.yaml with link drops injected, so the soak reports its per-reason rates too.
    static func allSuitesRig() throws -> String {
        let text = try String(contentsOfFile: RigTesting.path("rigs/virtual.yaml"), encoding: .utf8)
            .replacingOccurrences(of: "drops_per_hour: 0 ", with: "drops_per_hour: 2 ")
        #expect(text.contains("drops_per_hour: 2 "))
        return try RigTesting.temporaryFile(Array(text.utf8))
    }

    @Test("every metric a virtual run of every suite reports is listed, with its unit and definition")
    func everyReportedMetricIsListed() async throws {
        let campaign = try Campaign(rigFile: try Self.allSuitesRig(), benches: BenchBuilder())
        let result = try await campaign.run(RunOptions(outputRoot: CampaignTests.outputRoot()))
        let log = try RunLog(
            jsonLines: try Data(contentsOf: URL(fileURLWithPath: "\(result.directory)/run.jsonl")))
        var reported: [(suite: String, value: MeasuredValue)] = []
        for event in log.events {
            switch event {
            case .testFinished(let test): reported += test.measurements.map { (test.suite, $0) }
            case .boardFinished(let board): reported += board.measurements.map { ("preflight", $0) }
            default: break
            }
        }
        #expect(reported.count > 100)
        var seen: Set<String> = []
        for (suite, value) in reported {
            let about = try #require(SuiteAbout.named(suite), "suite \(suite)")
            let listed = about.metrics.filter { $0.name == value.metric }
            #expect(!listed.isEmpty, "\(suite) reports \(value.metric), which `blerig suites` does not list")
            guard
                let metric = listed.first(where: {
                    $0.statistics.contains(value.statistic.rawValue)
                        || ($0.statistics.contains("reason_<hci>") && value.statistic.rawValue.hasPrefix("reason_"))
                })
            else {
                Issue.record("\(suite): \(value.metric) \(value.statistic) is not among the statistics listed")
                continue
            }
            seen.insert("\(suite)/\(metric.name)/\(metric.statistics)")
            // A count is a number of samples or events, whatever the metric's own unit.
            let unit = value.statistic == .count ? MetricUnit.count : metric.unit
            #expect(unit == value.unit, "\(value.metric) \(value.statistic): unit \(value.unit) listed as \(unit)")
            if !metric.varies {
                #expect(metric.definition == value.definition, "\(value.metric)'s definition drifted")
            }
        }
        // And nothing listed is stale: every metric listed was reported by some board.
        for about in [SuiteAbout.everyBoard] + SuiteAbout.all {
            for metric in about.metrics {
                #expect(
                    seen.contains("\(about.name)/\(metric.name)/\(metric.statistics)"),
                    "\(about.name) lists \(metric.name) \(metric.statistics), which the run never reported")
            }
        }
    }
}
