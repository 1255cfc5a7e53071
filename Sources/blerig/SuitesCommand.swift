import ArgumentParser
import Foundation
import Orchestrator

extension Blerig {
    struct Suites: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the suites: what each checks, its options with their defaults, the metrics it reports.",
            discussion: """
                A rig selects suites under `suites:`, each with options: {handshake: {connections: 20}}. Every \
                metric is listed with its unit, the statistics reported (p50, value, ...) and its definition: the \
                span it times or what it counts. Names in <angle brackets> are filled in by the run. `preflight` \
                is what every board reports before its suites.

                Exit status:
                \(ExitStatus.table([(.passed, "the suites were listed"), (.usage, "the arguments are wrong")]))
                """)

        @Argument(help: ArgumentHelp("Only these suites (and preflight).", valueName: "suite"))
        var names: [String] = []

        @Flag(help: "Print a JSON array of {name, summary, options, metrics} instead.")
        var json = false

        func validate() throws {
            let known = [SuiteAbout.everyBoard.name] + SuiteAbout.all.map(\.name)
            if let unknown = names.first(where: { !known.contains($0) }) {
                throw ValidationError("unknown suite '\(unknown)' (blerig has \(known.joined(separator: ", ")))")
            }
        }

        func run() async throws {
            let all = [SuiteAbout.everyBoard] + SuiteAbout.all
            let chosen = names.isEmpty ? all : all.filter { names.contains($0.name) }
            if json {
                LineOutput.standardOutput.print(try SuiteAboutJSON.encode(chosen))
                return
            }
            for (index, about) in chosen.enumerated() {
                if index > 0 { LineOutput.standardOutput.print("") }
                for line in about.lines { LineOutput.standardOutput.print(line) }
            }
        }
    }
}
