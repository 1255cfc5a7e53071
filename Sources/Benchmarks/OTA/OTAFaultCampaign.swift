import CentralStack
import Foundation
import Orchestrator
import VirtualFarm

/// `blerig bench ota-faults`: many seeded ``OTAFaultRun``s, a few at a time (each simulation has a thread of its
/// own), summed up: bricked boards, the success rate, recoveries per update, the faults that fired, and the seeds of
/// every failed run so each can be replayed with its timeline.
public enum OTAFaultCampaign {
    /// The gates the campaign is held to.
    public static let requiredSuccess = 0.999

    public struct Summary: Sendable {
        public var runs = 0
        public var bricked = 0
        public var successes = 0
        public var counts = OTAFaultInjector.Counts()
        /// Recoveries (resumes + re-uploads + re-sends) of each run.
        public var recoveries: [Int] = []
        public var resumes = 0
        public var reuploads = 0
        public var resends = 0
        /// Failed runs: seed and why.
        public var failures: [(seed: UInt64, why: String)] = []
        public var wall: Duration = .zero

        public var successRate: Double { runs == 0 ? 0 : Double(successes) / Double(runs) }
        public var passed: Bool { bricked == 0 && successRate >= OTAFaultCampaign.requiredSuccess }

        mutating func add(_ result: OTAFaultRun.Result) {
            runs += 1
            if result.bricked { bricked += 1 }
            if result.success { successes += 1 }
            if let failure = result.failure { failures.append((result.seed, failure)) }
            counts.add(result.counts)
            recoveries.append(result.recoveries)
            resumes += result.resumes
            reuploads += result.reuploads
            resends += result.resends
        }

        /// The report, one line each.
        public var lines: [String] {
            let sorted = recoveries.sorted()
            func percentile(_ p: Double) -> Int {
                sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1)]
            }
            let mean = sorted.isEmpty ? 0 : Double(sorted.reduce(0, +)) / Double(sorted.count)
            let losses = OTAFaultPlan.Phase.allCases.map { "\($0.rawValue) \(counts.powerLosses[$0] ?? 0)" }
            let torn = counts.tornWrites.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
            var lines = [
                "runs              \(runs)  (wall \(String(format: "%.1f", wall.seconds)) s)",
                "bricked           \(bricked)  (must be 0)",
                "success           \(successes) = \(String(format: "%.2f", successRate * 100)) %  (must be ≥ 99.9 %)",
                "recoveries/update mean \(String(format: "%.2f", mean)), p50 \(percentile(0.5)), "
                    + "p99 \(percentile(0.99)), max \(sorted.last ?? 0)  "
                    + "(resumes \(resumes) + re-uploads \(reuploads) + re-sends \(resends))",
                "faults fired      link drops \(counts.linkDrops); power losses: \(losses.joined(separator: ", "))",
                "                  torn writes: \(torn.isEmpty ? "none" : torn.joined(separator: ", ")); "
                    + "bit flips: \(counts.bitFlipsDuringTransfer) during transfer, "
                    + "\(counts.bitFlipsAfterVerify) after verify; self-test failures \(counts.selfTestFailures)",
            ]
            if failures.isEmpty {
                lines.append("failures          none")
            } else {
                lines.append("failures          \(failures.count) (replay one: blerig bench ota-faults --seed S --runs 1)")
                for failure in failures.sorted(by: { $0.seed < $1.seed }) {
                    lines.append("  seed \(failure.seed): \(failure.why)")
                }
            }
            lines.append(passed ? "verdict           passed" : "verdict           FAILED")
            return lines
        }
    }

    /// Runs seeds `seed ..< seed + runs`, `jobs` at a time, with an image of `imageSize` bytes. `each` sees every
    /// result as it comes (in completion order).
    public static func run(
        seed: UInt64, runs: Int, imageSize: Int, jobs: Int, scratch: String,
        each: @escaping @Sendable (OTAFaultRun.Result) -> Void = { _ in }
    ) async throws -> Summary {
        let path = (scratch as NSString).appendingPathComponent("ota-faults-\(imageSize).bin")
        try OTAImageBuilder.write(to: path, size: imageSize, seed: 2026)
        let image = try OTAImageFile(path: path, version: OTAFaultRun.newVersion)
        let keepTimeline = runs == 1
        let started = ContinuousClock.now
        var summary = Summary()
        try await withThrowingTaskGroup(of: OTAFaultRun.Result.self) { group in
            var next: UInt64 = 0
            func launch() {
                guard next < UInt64(runs) else { return }
                let runSeed = seed &+ next
                next += 1
                group.addTask { try await OTAFaultRun.run(seed: runSeed, image: image, keepTimeline: keepTimeline) }
            }
            for _ in 0..<max(1, jobs) { launch() }
            while let result = try await group.next() {
                summary.add(result)
                each(result)
                launch()
            }
        }
        summary.wall = started.duration(to: .now)
        return summary
    }
}
