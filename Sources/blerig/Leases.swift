import ArgumentParser
import Foundation
import History
import Orchestrator

extension Blerig {
    struct Leases: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the boards' leases: who holds which board, since when, and until when.",
            discussion: """
                blerig run leases every board before it touches it, in the history database, and renews the lease \
                while it runs; a lease whose holder died expires and the next run takes it over.

                Exit status:
                \(ExitStatus.table)
                """)

        @OptionGroup var options: HistoryOptions

        @Flag(help: "Print a JSON array of leases instead.")
        var json = false

        func run() async throws {
            let json = json
            try await withHistory(options) { history throws(HistoryError) in
                let (leases, now) = try await history.leases()
                if json {
                    struct Lease: Encodable {
                        var resource, board, owner: String
                        var acquiredAt, renewedAt, expiresAt: Date
                        var expired: Bool
                    }
                    do {
                        try printJSON(
                            leases.map {
                                Lease(
                                    resource: $0.resource, board: $0.board, owner: $0.owner, acquiredAt: $0.acquiredAt,
                                    renewedAt: $0.renewedAt, expiresAt: $0.expiresAt, expired: $0.expiresAt <= now)
                            })
                    } catch { throw HistoryError(database: history.location.description, message: "\(error)") }
                    return
                }
                for line in HistoryText.leases(leases, now: now) { LineOutput.standardOutput.print(line) }
            }
        }
    }
}
