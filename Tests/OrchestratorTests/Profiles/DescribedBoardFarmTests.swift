import Benches
import DeviceProfiles
import Foundation
import Reports
import Testing

@testable import Orchestrator

/// Boards described as data (profiles/*.yaml) on the virtual farm: the generic suites run on them, and the
/// data-described Nano gives the built-in Nano's verdicts.
@Suite("Described boards on the virtual farm")
struct DescribedBoardFarmTests {
    /// The repository's `profiles/` directory.
    static let profiles = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("profiles").path

    static let suites = """
          - discovery
          - handshake: {connections: 4}
          - commands: {repetitions: 3}
          - notifications: {duration_s: 10}
          - soak: {duration_h: 0.05, traffic_interval_s: 30}
          - power: {cycles: 2}
        """

    static func rig(profile: String, id: String = "nano-01", seed: Int = 7) -> String {
        """
        rig: described
        radio: virtual
        boards:
          - id: \(id)
            profile: \(profile)
        virtual: {seed: \(seed)}
        suites:
        \(suites)
        """
    }

    /// Every check as `suite/name: outcome`, the profile's name in a check name replaced by `<profile>`.
    static func verdicts(_ result: CampaignResult, profileName: String) -> [String] {
        result.result.boards.flatMap { board in
            board.tests.map { test in
                let name = test.name.replacingOccurrences(of: profileName, with: "<profile>")
                let outcome: String =
                    switch test.outcome {
                    case .passed: "passed"
                    case .failed(let message, _): "failed: \(message)"
                    case .skipped(let reason): "skipped: \(reason)"
                    case .error(let message, _): "error: \(message)"
                    case .interrupted(let reason): "interrupted: \(reason)"
                    }
                return "\(test.suite)/\(name): \(outcome)"
            }
        }
    }

    @Test("the data-described Nano gives the built-in Nano's checks, verdicts and comparable metrics")
    func nanoAsDataMatchesBuiltIn() async throws {
        let builtIn = try await CampaignTests.run(Self.rig(profile: "nano33-ble-sense"))
        let described = try await CampaignTests.run(
            Self.rig(profile: "{file: \(Self.profiles)/nano33-ble.yaml}"))
        let expected = Self.verdicts(builtIn, profileName: "nano33-ble-sense")
        #expect(expected.count >= 8)
        #expect(expected.allSatisfy { $0.hasSuffix(": passed") || $0.contains("skipped") }, "\(expected)")
        #expect(Self.verdicts(described, profileName: "nano33-tutorial") == expected)
        #expect(described.result.boards.first?.profile == "nano33-tutorial")
        // The same metrics, each within 5 % of the built-in's (both boards run on the same seed; the values
        // differ only where the data board's model draws its randomness from other streams).
        let a = CampaignTests.measurements(builtIn)
        let b = CampaignTests.measurements(described)
        let normalise = { (values: [String: Double], name: String) in
            Dictionary(uniqueKeysWithValues: values.map { ($0.key.replacingOccurrences(of: name, with: "<profile>"), $0.value) })
        }
        let (left, right) = (normalise(a, "nano33-ble-sense"), normalise(b, "nano33-tutorial"))
        #expect(left.keys.sorted() == right.keys.sorted())
        for (key, value) in left {
            let other = try #require(right[key], "\(key)")
            #expect(abs(other - value) <= max(1, abs(value) * 0.05), "\(key): built-in \(value), described \(other)")
        }
    }

    @Test("a plain Heart Rate sensor described as data passes the generic suites, measurements decoded")
    func heartRateSensorPasses() async throws {
        let result = try await CampaignTests.run(
            Self.rig(profile: "{file: \(Self.profiles)/heart-rate-sensor.yaml}", id: "hrs-01"))
        let verdicts = Self.verdicts(result, profileName: "heart-rate-sensor")
        #expect(result.result.failingCheckLines() == [], "\(verdicts)")
        #expect(verdicts.contains("notifications/Heart Rate Measurement rate and gaps: passed"))
        #expect(verdicts.contains("commands/control point answers: passed"))
        #expect(verdicts.contains("discovery/advertises as <profile>: passed"))
        let logs = result.result.boards[0].logs.map(\.message)
        #expect(logs.contains { $0.contains("Heart Rate Measurement:") && $0.contains("decoded as heart-rate-measurement") })
    }
}
