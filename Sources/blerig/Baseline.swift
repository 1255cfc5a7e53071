import ArgumentParser
import Foundation
import History
import Orchestrator

extension Blerig {
    struct Baseline: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Name stored runs as baselines that later runs are compared with (run --baseline NAME).",
            discussion: """
                Exit status:
                \(ExitStatus.table)
                """,
            subcommands: [Set.self, List.self], defaultSubcommand: List.self)
    }
}

extension Blerig.Baseline {
    struct Set: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Point the baseline NAME at RUN.")

        @OptionGroup var options: HistoryOptions

        @Argument(help: ArgumentHelp("The baseline's name (release-1.4, nightly).", valueName: "NAME"))
        var name: String

        @Argument(help: ArgumentHelp("A stored run's id, or another baseline's name.", valueName: "RUN"))
        var run: String

        func validate() throws {
            guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || "._-".contains($0) }) else {
                throw ValidationError("baseline name '\(name)': use letters, digits, '.', '-' and '_'")
            }
        }

        func run() async throws {
            let (name, run) = (name, run)
            let by = LeaseOwner.current(host: HostID.current()).name
            try await withHistory(options, usage: true) { history throws(HistoryError) in
                let target = try await history.resolve(run)
                try await history.setBaseline(name, run: target.runID, by: by)
                LineOutput.standardOutput.print("baseline \(name) → \(target.runID)")
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the baselines.")

        @OptionGroup var options: HistoryOptions

        func run() async throws {
            try await withHistory(options) { history throws(HistoryError) in
                let baselines = try await history.baselines()
                if baselines.isEmpty { LineOutput.standardOutput.print("no baselines") }
                for baseline in baselines {
                    LineOutput.standardOutput.print(
                        "\(baseline.name) → \(baseline.runID) (set \(baseline.setAt.formatted(.iso8601)) by "
                            + "\(baseline.setBy))")
                }
            }
        }
    }
}
