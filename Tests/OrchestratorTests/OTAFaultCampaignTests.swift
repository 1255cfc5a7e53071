import Foundation
import Synchronization
import Testing

@testable import Benchmarks

/// The short form of `blerig bench ota-faults`: seeded OTAs under link drops, power loss in every phase, bit flips
/// and failing self-tests, each ending with the board powered up on the new firmware.
@Suite("OTA fault campaign")
struct OTAFaultCampaignTests {
    static func scratch() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("blerig-ota-faults-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test("60 seeded runs: no board bricks, every update ends committed, and every kind of fault fired")
    func shortCampaign() async throws {
        let scratch = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let summary = try await OTAFaultCampaign.run(seed: 1, runs: 60, imageSize: 16 * 1024, jobs: 2, scratch: scratch)
        #expect(summary.bricked == 0)
        #expect(summary.failures.isEmpty, "\(summary.failures)")
        #expect(summary.counts.linkDrops > 0)
        #expect(summary.counts.powerLosses.count == 4, "\(summary.counts.powerLosses)")
        #expect(summary.counts.bitFlipsDuringTransfer > 0 && summary.counts.bitFlipsAfterVerify > 0)
        #expect(summary.counts.selfTestFailures > 0)
        #expect(summary.counts.tornWrites["otadata", default: 0] > 0, "\(summary.counts.tornWrites)")
    }

    @Test("a replayed seed gives the same run, timeline included")
    func replay() async throws {
        let scratch = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        var timelines: [[String]] = []
        for _ in 0..<2 {
            let results = Mutex<[OTAFaultRun.Result]>([])
            _ = try await OTAFaultCampaign.run(seed: 7, runs: 1, imageSize: 16 * 1024, jobs: 1, scratch: scratch) {
                result in results.withLock { $0.append(result) }
            }
            timelines.append(results.withLock { $0 }.first?.timeline ?? [])
        }
        #expect(!timelines[0].isEmpty)
        #expect(timelines[0] == timelines[1])
    }
}
