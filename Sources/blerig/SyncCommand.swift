import ArgumentParser
import CentralStack
import Foundation
import Orchestrator

extension Blerig {
    /// `blerig sync`: the app's sync queue on disk.
    struct SyncCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "sync", abstract: "Work on an app's sync queue file.", subcommands: [Requeue.self])

        /// `blerig sync requeue --db queue.sqlite [--board SERIAL]`.
        struct Requeue: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Move dead-lettered readings back to the sync queue, their attempts reset.",
                discussion: """
                    Readings the ingest refused 5 times are kept as dead letters, never dropped. Once the cause is \
                    fixed, requeue them: the next upload sends them again under the same key, so one the ingest \
                    already holds is deduplicated there.

                    Exit status:
                    \(ExitStatus.table([
                        (.passed, "the dead letters were requeued (the count is printed)"),
                        (.usage, "the arguments are wrong, or the file is missing, unreadable, not SQLite or not "
                            + "a sync queue; nothing changed"),
                        (.infrastructure, "the queue could not be opened or written (the error is printed)"),
                    ]))
                    """)

            @Option(help: "The sync queue file (SQLite).")
            var db: String

            @Option(help: "Only the dead letters of this board serial.")
            var board: String?

            /// The file must be there and be a readable SQLite file: opening anything else would make it a new,
            /// empty queue (or fail as a write error), and requeue nothing.
            func validate() throws {
                var isDirectory: ObjCBool = false
                guard FileManager.default.fileExists(atPath: db, isDirectory: &isDirectory) else {
                    throw ValidationError("--db \(db): no such file (a sync queue is created by the app, not here)")
                }
                guard !isDirectory.boolValue else {
                    throw ValidationError("--db \(db): is a directory, not a sync queue file")
                }
                guard let file = FileHandle(forReadingAtPath: db) else {
                    throw ValidationError("--db \(db): cannot be read (check its permissions)")
                }
                defer { try? file.close() }
                let header = (try? file.read(upToCount: Self.sqliteHeader.count)) ?? Data()
                guard header.elementsEqual(Self.sqliteHeader) else {
                    throw ValidationError(
                        "--db \(db): not a SQLite file (it does not begin with \"SQLite format 3\"), so not a sync queue"
                    )
                }
            }

            /// The first 16 bytes of every SQLite 3 database file.
            static let sqliteHeader = Array("SQLite format 3\0".utf8)

            func run() async throws {
                do {
                    let queue = try SyncQueue.existing(at: db)
                    let requeued = try queue.requeueDeadLetters(board: board)
                    let left = try queue.deadLetters().count
                    LineOutput.standardOutput.print(
                        "requeued \(requeued) dead letter(s) in \(db); \(try queue.pendingCount()) pending, "
                            + "\(left) dead letter(s) left")
                } catch {
                    LineOutput.standardError.print("blerig: \(error)")
                    // Another database, or one SQLite cannot read as a database: the wrong file, left as it was.
                    let wrongFile = error.kind == .notAQueue || error.kind == .corrupt
                    throw ExitCode((wrongFile ? ExitStatus.usage : .infrastructure).rawValue)
                }
            }
        }
    }
}
