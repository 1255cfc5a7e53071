import ArgumentParser
import Benches
import Benchmarks
import Foundation
import Orchestrator
import Synchronization

extension Blerig.Bench {
    struct OTAFaults: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "ota-faults",
            abstract: "Seeded OTAs on the virtual farm under link drops, power loss, flash corruption and self-test failure.",
            discussion: """
                Each run (seed S, S+1, …) updates a virtual esp-point from 1.4.2 to 1.5.0 with the central stack's OTA \
                sender while the run's fault plan, drawn from its seed, drops the link, cuts the power during the \
                image write, the otadata write or the unconfirmed first boot (tearing the flash write under way), \
                flips a bit of the written image, or makes the self-test fail. The central resumes and re-sends as \
                the app does (at most 6 transfers). Then the board is power-cycled: it must come up (else it is \
                bricked) on 1.5.0, committed. Virtual time; runs go --jobs at a time.

                --runs 1 prints the run's timeline: replay a failed seed with --seed S --runs 1.

                Exit status:
                \(ExitStatus.table([
                    (.passed, "no board bricked and at least 99.9 % of the updates succeeded"),
                    (.checksFailed, "a board bricked or fewer than 99.9 % succeeded (the seeds are printed)"),
                    (.usage, "the arguments are wrong; nothing ran"),
                    (.infrastructure, "a run could not be carried out (the error is printed)"),
                ]))
                """)

        @Option(help: "How many runs.")
        var runs = 10_000

        @Option(help: "The first run's seed.")
        var seed: UInt64 = 1

        @Option(help: "Image size in KiB.")
        var imageKib = 64

        @Option(help: "Runs at a time (default: the processor count).")
        var jobs = ProcessInfo.processInfo.activeProcessorCount

        func validate() throws {
            guard runs >= 1 else { throw ValidationError("--runs must be at least 1") }
            guard (1...12 * 1024).contains(imageKib) else { throw ValidationError("--image-kib must be 1 to 12288") }
            guard (1...64).contains(jobs) else { throw ValidationError("--jobs must be 1 to 64") }
        }

        func run() async throws {
            let out = LineOutput.standardOutput
            let scratch = try scratchDirectory()
            defer { try? FileManager.default.removeItem(atPath: scratch) }
            let summary: OTAFaultCampaign.Summary
            do {
                let total = runs
                let done = Counter()
                summary = try await OTAFaultCampaign.run(
                    seed: seed, runs: runs, imageSize: imageKib * 1024, jobs: jobs, scratch: scratch
                ) { result in
                    if total == 1 {
                        for line in result.timeline { out.print(line) }
                    } else if let failure = result.failure {
                        out.print("seed \(result.seed) failed: \(failure) [plan: \(result.plan)]")
                    }
                    let n = done.increment()
                    if total >= 1000, n % 1000 == 0 { LineOutput.standardError.print("\(n) of \(total) runs") }
                }
            } catch {
                LineOutput.standardError.print("blerig: \(error)")
                throw ExitCode(ExitStatus.infrastructure.rawValue)
            }
            out.print("OTA fault campaign: seeds \(seed)…\(seed &+ UInt64(runs - 1)), image \(imageKib) KiB, \(jobs) at a time")
            for line in summary.lines { out.print(line) }
            if !summary.passed { throw ExitCode(ExitStatus.checksFailed.rawValue) }
        }
    }
}

/// A count shared by concurrent runs' callbacks.
private final class Counter: Sendable {
    private let value = Mutex(0)
    func increment() -> Int { value.withLock { $0 += 1; return $0 } }
}
