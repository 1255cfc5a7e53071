import ArgumentParser
import Benches
import Benchmarks
import Foundation
import Orchestrator

extension Blerig.Bench {
    struct Sync: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Sync queue throughput: enqueue + upload + delete in items/s against the real local ingest.",
            discussion: """
                A queue file (SQLite, WAL, synchronous=FULL) is filled in durable commits of --chunk readings, then \
                drained in batches of 50 over HTTP to a Hummingbird ingest on 127.0.0.1. Wall time.

                \(Blerig.Bench.exitSection)
                """)

        @Option(help: "Readings to queue and upload.")
        var items = 20_000

        @Option(help: "Readings per enqueue transaction (a READ chunk of the log puller).")
        var chunk = 256

        @Option(help: "Runs; each uses a fresh queue file and server.")
        var runs = 3

        @Option(help: "Where the queue file goes (default: the temporary directory).")
        var directory: String?

        func validate() throws {
            guard (1...10_000_000).contains(items) else { throw ValidationError("--items must be 1…10000000") }
            guard (1...100_000).contains(chunk) else { throw ValidationError("--chunk must be 1…100000") }
            guard runs >= 1 else { throw ValidationError("--runs must be at least 1") }
        }

        func run() async throws {
            for index in 1...runs {
                let result: SyncBenchmark.Result
                do { result = try await SyncBenchmark.run(items: items, chunk: chunk, directory: directory) } catch {
                    LineOutput.standardError.print("blerig: bench sync: \(error)")
                    throw ExitCode(ExitStatus.infrastructure.rawValue)
                }
                LineOutput.standardOutput.print(
                    "run \(index): \(result.items) readings: enqueue \(Self.rate(result.enqueuePerSecond)) items/s "
                        + "(\(result.items / result.chunk) commits of \(result.chunk)), upload + delete "
                        + "\(Self.rate(result.drainPerSecond)) items/s (\(result.batches) batches of 50), "
                        + "end to end \(Self.rate(result.endToEndPerSecond)) items/s")
            }
        }

        static func rate(_ value: Double) -> String { String(format: "%.0f", value) }
    }
}
