import ArgumentParser
import Benches
import Foundation
import Gates
import Orchestrator
import Reports

extension Blerig.Bench {
    struct GatesBench: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "gates",
            abstract: "Gate evaluation against --runs stored runs made from a real run's samples; wall time.",
            discussion: """
                Takes one real run (--run DIR, or a run of --rig made now), makes --runs runs of it by redrawing \
                every check's raw samples with a per-run drift of about 3 % (every 10th run 20 % slower), writes \
                them as run directories, reads them back (run.jsonl, folded) and judges each by --gates against \
                the first as baseline.

                \(Blerig.Bench.exitSection)
                """)

        @Option(help: ArgumentHelp("A run directory to take the samples from.", valueName: "RUN_DIR"))
        var run: String?

        @Option(help: ArgumentHelp("The rig to run for samples when --run is not given.", valueName: "rig.yaml"))
        var rig = "rigs/virtual.yaml"

        @Option(help: ArgumentHelp("The gates file.", valueName: "gates.yaml"))
        var gates = "rigs/gates.yaml"

        @Option(help: "How many stored runs to make and judge.")
        var runs = 100

        func validate() throws {
            guard (2...100_000).contains(runs) else { throw ValidationError("--runs must be 2…100000") }
        }

        func run() async throws {
            let output = LineOutput.standardOutput
            let scratch = FileManager.default.temporaryDirectory
                .appendingPathComponent("blerig-bench-gates-\(UUID().uuidString)").path
            defer { try? FileManager.default.removeItem(atPath: scratch) }
            do {
                let source: String
                if let run {
                    source = run
                } else {
                    output.print("running \(rig) for samples…")
                    let result = try await Orchestrator.Campaign(rigFile: rig, benches: BenchBuilder())
                        .run(RunOptions(outputRoot: scratch))
                    source = result.directory
                }
                let events = try RunLog(
                    jsonLines: Data(contentsOf: URL(fileURLWithPath: (source as NSString).appendingPathComponent("run.jsonl")))
                ).events
                let file = try GatesFile.load(contentsOf: gates)
                let result = try await GateBenchmark(runs: runs).measure(
                    source: events, gates: file, directory: (scratch as NSString).appendingPathComponent("runs"))
                Self.print(result, gates: gates, source: source)
            } catch let error as RigFileError {
                LineOutput.standardError.print("blerig: \(error.report)")
                throw ExitCode(ExitStatus.usage.rawValue)
            } catch {
                LineOutput.standardError.print("blerig: bench gates: \(error)")
                throw ExitCode(ExitStatus.infrastructure.rawValue)
            }
        }

        static func print(_ r: GateBenchmark.Result, gates: String, source: String) {
            let output = LineOutput.standardOutput
            func ms(_ d: Duration) -> String { String(format: "%.1f", d.seconds * 1000) }
            let judged = r.runs * r.gates
            output.print(
                "\(r.runs) runs from \(source): \(r.boards) boards, \(r.samplesPerRun) raw samples and "
                    + "\(String(format: "%.0f", Double(r.bytesPerRun) / 1024)) KiB of run.jsonl per run; \(gates): "
                    + "\(r.gates) gates")
            output.print("write run directories  \(ms(r.write)) ms")
            output.print(
                "load (read + fold)     \(ms(r.load)) ms, \(String(format: "%.2f", r.load.seconds * 1000 / Double(r.runs))) ms per run")
            output.print(
                "evaluate               \(ms(r.evaluate)) ms, "
                    + "\(String(format: "%.2f", r.evaluate.seconds * 1000 / Double(r.runs))) ms per run, "
                    + "\(String(format: "%.0f", r.evaluate.seconds * 1e6 / Double(max(1, judged)))) µs per gate")
            output.print(
                "load + evaluate        \(ms(r.load + r.evaluate)) ms for \(r.runs) runs")
            output.print(
                "verdicts: \(r.held) held, \(r.breached) breached, \(r.notEnoughData) not enough data; runs with a "
                    + "breach: \(r.breachedRuns) (\(r.slowRunsCaught) of the \(r.slowRuns) runs made 20 % slower)")
        }
    }
}
