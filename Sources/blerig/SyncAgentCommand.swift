import ArgumentParser
import BLECore
import Benches
import Benchmarks
import CentralStack
import Foundation
import Orchestrator

extension Blerig {
    /// Hidden: the phone app's sync path as a process, for the kill -9 crash test (see ``SyncAgent``).
    struct SyncAgentCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "sync-agent",
            abstract: "Pull an esp-point's log into a sync queue and upload it to an ingest, printing each step.",
            discussion: """
                Exit status:
                \(ExitStatus.table([
                    (.passed, "the log was pulled and uploaded"),
                    (.usage, "the arguments are wrong; nothing ran"),
                    (.infrastructure, "the radio, the board, the queue or the ingest failed (the error is printed)"),
                ]))
                """,
            shouldDisplay: false)

        @Option(help: "The radio: tcp:HOST:PORT (an HCI controller, e.g. rootcanal's).")
        var radio: String

        @Option(help: "The board's address (with /random for a random one).")
        var board: String

        @Option(help: "The sync queue file (SQLite).")
        var queue: String

        @Option(help: "The ingest's base URL.")
        var ingest: String

        @Option(help: "The 32-byte pairing key, hex.")
        var key: String

        @Option(help: "Stop after this many progress lines and wait to be killed.")
        var stallAfter: Int?

        func validate() throws {
            guard DeviceAddress(board) != nil else { throw ValidationError("--board '\(board)' is not an address") }
            guard let url = URL(string: ingest), url.host != nil else {
                throw ValidationError("--ingest '\(ingest)' is not a URL")
            }
            guard Hex.decode(key)?.count == 32 else { throw ValidationError("--key must be 64 hex digits") }
        }

        func run() async throws {
            let options = SyncAgent.Options(
                radio: radio, board: DeviceAddress(board)!, queuePath: queue, ingest: URL(string: ingest)!,
                key: Hex.decode(key)!, stallAfter: stallAfter)
            do {
                try await SyncAgent.run(options) { line in LineOutput.standardOutput.print(line) }
            } catch {
                LineOutput.standardError.print("blerig sync-agent: \(error)")
                throw ExitCode(ExitStatus.infrastructure.rawValue)
            }
        }
    }
}
