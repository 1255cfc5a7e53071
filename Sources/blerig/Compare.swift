import ArgumentParser
import Foundation
import History
import Orchestrator

extension Blerig {
    struct Compare: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Compare two stored runs metric by metric: both values, the change, and the verdict.",
            discussion: """
                A and B are run ids (see blerig history) or baseline names (see blerig baseline). Values are matched \
                by board, check, metric and statistic; a value only one run has shows '-' on the other side.

                Exit status:
                \(ExitStatus.table)
                """)

        @OptionGroup var options: HistoryOptions

        @Argument(help: ArgumentHelp("The earlier run (or baseline).", valueName: "A"))
        var a: String

        @Argument(help: ArgumentHelp("The later run (or baseline).", valueName: "B"))
        var b: String

        @Option(help: "Only this board.")
        var board: String?

        @Option(help: "Only this metric (handshake.ready_ms).")
        var metric: String?

        @Flag(help: "Print JSON instead.")
        var json = false

        func run() async throws {
            let (a, b, board, metric, json) = (a, b, board, metric, json)
            try await withHistory(options, usage: true) { history throws(HistoryError) in
                let comparison = try await RunComparison.load(history, a: a, b: b, board: board, metric: metric)
                guard json else {
                    for line in HistoryText.comparison(comparison) { LineOutput.standardOutput.print(line) }
                    return
                }
                struct Output: Encodable {
                    var a: RunRecord
                    var b: RunRecord
                    var metrics: [RunComparison.MetricComparison]
                }
                do { try printJSON(Output(a: comparison.a, b: comparison.b, metrics: comparison.metrics)) } catch {
                    throw HistoryError(database: history.location.description, message: "\(error)")
                }
            }
        }
    }
}
