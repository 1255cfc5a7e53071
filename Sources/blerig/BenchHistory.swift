import ArgumentParser
import Benches
import Foundation
import History
import Orchestrator

extension Blerig.Bench {
    struct HistoryInsert: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "history",
            abstract: "History insert time of a large run, SQLite and PostgreSQL side by side.",
            discussion: """
                Runs the rig once on the virtual farm, copies its boards until the run has --boards boards, and \
                stores that run --repeats times on each backend (each time as a new run), wall time per store. \
                SQLite goes to a scratch file; PostgreSQL to a scratch database created beside --postgres (or \
                $BLERIG_TEST_POSTGRES_URL) and dropped after. `make bench-history` starts a private server.
                """)

        @Argument(help: ArgumentHelp("The rig whose run is copied (YAML).", valueName: "rig.yaml"))
        var rig = "rigs/virtual.yaml"

        @Option(help: "Boards in the stored run.")
        var boards = 1024

        @Option(help: "Stores per backend.")
        var repeats = 3

        @Option(
            help: ArgumentHelp(
                "A PostgreSQL server to measure on (a role that may create databases).", valueName: "URL"))
        var postgres: String?

        @Option(help: "The metric read back for one board.")
        var metric = "handshake.ready_ms"

        @Option(help: "Samples per percentile metric for checks that kept none (0: store only what the run kept).")
        var samples = 100

        func validate() throws {
            guard (1...100_000).contains(boards) else { throw ValidationError("--boards must be 1…100000") }
            guard (1...100).contains(repeats) else { throw ValidationError("--repeats must be 1…100") }
            guard (0...100_000).contains(samples) else { throw ValidationError("--samples must be 0…100000") }
        }

        func run() async throws {
            let output = LineOutput.standardOutput
            let scratch = try scratchDirectory()
            defer { try? FileManager.default.removeItem(atPath: scratch) }
            let result: CampaignResult
            do {
                result = try await Orchestrator.Campaign(rigFile: rig, benches: BenchBuilder()).run(
                    RunOptions(outputRoot: scratch))
            } catch {
                LineOutput.standardError.print("blerig: \(error.report)")
                throw ExitCode(error.exitStatus.rawValue)
            }
            var measurements: [HistoryBenchmark.Measurement] = []
            let run = samples > 0 ? HistoryBenchmark.fillingSamples(result.result, perMetric: samples) : result.result
            do {
                output.print("history insert: a run of \(try HistoryBenchmark.shape(run, boards: boards))")
                output.print(
                    "  (the \(result.result.boards.count) boards of \(rig) copied"
                        + (samples > 0 ? "; \(samples) samples per percentile metric\n  where a check kept none" : "")
                        + "), wall time per store")
                let path = (scratch as NSString).appendingPathComponent("history.sqlite")
                let sqlite = try SQLiteHistory(path: path)
                measurements.append(
                    try await HistoryBenchmark.measure(
                        run, boards: boards, repeats: repeats, on: sqlite, backend: "SQLite", metric: metric
                    ) {
                        ["", "-wal"].compactMap {
                            (try? FileManager.default.attributesOfItem(atPath: path + $0))?[.size] as? Int
                        }.reduce(0, +)
                    })
                await sqlite.close()
                if let server = postgres ?? ProcessInfo.processInfo.environment["BLERIG_TEST_POSTGRES_URL"] {
                    let admin = try PostgresURL(server)
                    let url = try await PostgresScratch.create(beside: admin, prefix: "blerig_bench")
                    do {
                        let history = try await PostgresHistory.connect(url)
                        measurements.append(
                            try await HistoryBenchmark.measure(
                                run, boards: boards, repeats: repeats, on: history, backend: "PostgreSQL",
                                metric: metric))
                        await history.close()
                    } catch {
                        try? await PostgresScratch.drop(url, admin: admin)
                        throw error
                    }
                    try await PostgresScratch.drop(url, admin: admin)
                }
            } catch {
                LineOutput.standardError.print("blerig: bench history: \(error)")
                throw ExitCode(ExitStatus.infrastructure.rawValue)
            }
            for line in HistoryBenchmark.table(measurements, boards: boards) { output.print(line) }
            if measurements.count == 1 {
                output.print("PostgreSQL: not measured; give --postgres URL (make bench-history starts a server)")
            }
        }
    }
}
