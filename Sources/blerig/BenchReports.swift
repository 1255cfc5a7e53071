import ArgumentParser
import Foundation
import Benchmarks
import Orchestrator

extension Blerig.Bench {
    struct Reports: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Render every report of a synthetic run of --testcases checks; print time, sizes, peak RSS.",
            discussion: """
                The run has 25 checks per board (every fifth with 200 raw samples, one in 50 failing, one in 100 \
                flaky), folded as a real run folds it, then junit.xml, summary.md, report.html and metrics.prom \
                are rendered in memory. Peak RSS is this process's ru_maxrss (getrusage), events included.
                """)

        @Option(help: "How many testcases the synthetic run has.")
        var testcases = 10_000

        func validate() throws {
            guard (1...10_000_000).contains(testcases) else {
                throw ValidationError("--testcases must be from 1 to 10000000")
            }
        }

        func run() async throws {
            let m = ReportBenchmark.measure(testcases: testcases)
            let out = LineOutput.standardOutput
            out.print("\(m.testcases) testcases on \(m.boards) boards, \(m.events) events")
            for step in m.steps {
                let size = step.bytes.map { String(format: ", %.2f MB", Double($0) / 1_000_000) } ?? ""
                out.print("  " + step.name.padding(toLength: 16, withPad: " ", startingAt: 0)
                    + String(format: "%8.3f s", step.seconds) + size)
            }
            out.print(String(format: "total %.3f s, peak RSS %.1f MB", m.total, Double(m.peakRSSBytes) / 1_048_576))
        }
    }
}
