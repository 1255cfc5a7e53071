import CentralStack
import Foundation
import Synchronization
import GRDB
import Orchestrator
import Testing

/// `blerig sync requeue` as a user runs it: the built binary on a real SQLite sync queue written through
/// ``SyncQueue``, then the queue read back; and files that are not a queue refused with their path and exit 2.
@Suite("blerig sync requeue")
struct SyncRequeueCommandLineTests {
    /// A fresh directory, removed by the caller.
    static func directory() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("blerig-requeue-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// A 14-byte esp-point reading with `seq` (docs/board-contract.md, esp-point "Reading").
    static func reading(_ seq: UInt32) -> [UInt8] {
        var bytes: [UInt8] = []
        for value in [seq, 1_700_000_000 + seq] {
            for shift in stride(from: 0, to: 32, by: 8) {
                bytes.append(UInt8(truncatingIfNeeded: value >> UInt32(shift)))
            }
        }
        return bytes + [0xF4, 0x07, 0x88, 0x13, 0x74, 0x0E]
    }

    /// Board B: readings 1, 2 dead-lettered, 3 pending; board C: reading 7 dead-lettered. The queue is closed when
    /// this returns (the binary opens the file on its own).
    static func queueFile(in directory: String) throws -> String {
        let path = directory + "/queue.sqlite"
        let queue = try SyncQueue(path: path)
        try queue.enqueue(board: "B", records: [(1, reading(1)), (2, reading(2)), (3, reading(3))], at: 0)
        try queue.enqueue(board: "C", records: [(7, reading(7))], at: 0)
        let dead = try queue.oldest(limit: 10).filter { [1, 2, 7].contains($0.seq) }.map(\.id)
        try queue.recordFailures(dead.map { ($0, "HTTP 422 refused") }, deadLetter: Set(dead), at: 1)
        try #require(try queue.deadLetters().count == 3 && queue.pendingCount() == 1)
        return path
    }

    static func pending(_ path: String) throws -> [String] {
        try SyncQueue(path: path).oldest(limit: 10).map { "\($0.board)/\($0.seq) tries \($0.retryCount)" }.sorted()
    }

    @Test("requeue --board C moves only C's dead letter back; then requeue moves the rest, and exits 0 each time")
    func requeuesFromTheCommandLine() async throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = try Self.queueFile(in: directory)

        let one = try await CommandLineTests.blerig(["sync", "requeue", "--db", path, "--board", "C"])
        #expect(one.status == 0, "\(one.errors)")
        #expect(one.output == "requeued 1 dead letter(s) in \(path); 2 pending, 2 dead letter(s) left\n")
        #expect(try Self.pending(path) == ["B/3 tries 0", "C/7 tries 0"])
        #expect(try SyncQueue(path: path).deadLetters().map { "\($0.board)/\($0.seq ?? 0)" } == ["B/1", "B/2"])

        let rest = try await CommandLineTests.blerig(["sync", "requeue", "--db", path])
        #expect(rest.status == 0, "\(rest.errors)")
        #expect(rest.output == "requeued 2 dead letter(s) in \(path); 4 pending, 0 dead letter(s) left\n")
        #expect(try Self.pending(path) == ["B/1 tries 0", "B/2 tries 0", "B/3 tries 0", "C/7 tries 0"])
        #expect(try SyncQueue(path: path).deadLetters().isEmpty)
        let payload = try SyncQueue(path: path).oldest(limit: 10).first { $0.seq == 2 }?.payload
        #expect(payload == Self.reading(2))

        let again = try await CommandLineTests.blerig(["sync", "requeue", "--db", path])
        #expect(again.status == 0)
        #expect(again.output == "requeued 0 dead letter(s) in \(path); 4 pending, 0 dead letter(s) left\n")
    }

    @Test(
        "a missing file, a directory and a file that is not SQLite exit 2 with the path and why, and are left as they were",
        arguments: ["missing", "directory", "text"])
    func refusesWhatIsNotAQueue(_ kind: String) async throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/queue.sqlite"
        let why: String
        switch kind {
        case "missing": why = "no such file"
        case "directory":
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
            why = "is a directory"
        default:
            try Data("board,seq\nB,1\n".utf8).write(to: URL(fileURLWithPath: path))
            why = "not a SQLite file"
        }
        let outcome = try await CommandLineTests.blerig(["sync", "requeue", "--db", path])
        #expect(outcome.status == ExitStatus.usage.rawValue, "\(outcome.errors)")
        #expect(outcome.output.isEmpty)
        #expect(outcome.errors.contains("--db \(path): \(why)"), "\(outcome.errors)")
        // Nothing was created or changed: no queue file, no WAL beside it.
        let names = try FileManager.default.contentsOfDirectory(atPath: directory)
        #expect(names == (kind == "missing" ? [] : ["queue.sqlite"]), "\(names)")
        if kind == "text" {
            #expect(try String(contentsOfFile: path, encoding: .utf8) == "board,seq\nB,1\n")
        }
    }

    @Test(
        "another SQLite database (a run history given by mistake) exits 2 as not a sync queue, byte for byte untouched",
        arguments: [false, true])
    func refusesAnotherDatabase(withMigrations: Bool) async throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/history.sqlite"
        // Plain, or with GRDB's migrations table and a "v1" of its own, as any GRDB app's file may have: then only
        // the queue's item table tells a queue apart.
        let other = try DatabaseQueue(path: path)
        try await other.write { db in
            if withMigrations {
                try db.execute(sql: "CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)")
                try db.execute(sql: "INSERT INTO grdb_migrations VALUES ('v1')")
            }
            try db.execute(sql: "CREATE TABLE run (id TEXT PRIMARY KEY, rig TEXT)")
            try db.execute(sql: "INSERT INTO run VALUES ('r1', 'virtual-farm')")
        }
        try other.close()
        let before = try Data(contentsOf: URL(fileURLWithPath: path))

        let outcome = try await CommandLineTests.blerig(["sync", "requeue", "--db", path])
        #expect(outcome.status == ExitStatus.usage.rawValue, "\(outcome.errors)")
        #expect(outcome.output.isEmpty)
        #expect(outcome.errors.contains("sync queue \(path): opening failed"), "\(outcome.errors)")
        #expect(outcome.errors.contains("no sync queue in it"), "\(outcome.errors)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["history.sqlite"])
    }

    @Test(
        "a queue held in a write: released in time, requeue waits and requeues; held throughout, it exits 3, locked",
        arguments: [false, true])
    func lockedQueue(heldThroughout: Bool) async throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = try Self.queueFile(in: directory)
        // The app's own connection, in the middle of a write (an upload recording its outcome).
        var holding = Configuration()
        holding.allowsUnsafeTransactions = true
        let app = try DatabaseQueue(path: path, configuration: holding)
        try app.inDatabase { try $0.execute(sql: "BEGIN IMMEDIATE") }
        @Sendable func rollBack() throws { try app.inDatabase { try $0.execute(sql: "ROLLBACK") } }
        if heldThroughout {
            // Held until requeue has given up.
            let started = ContinuousClock.now
            let outcome = try await CommandLineTests.blerig(["sync", "requeue", "--db", path])
            let waited = started.duration(to: .now)
            try rollBack()
            #expect(outcome.status == ExitStatus.infrastructure.rawValue, "\(outcome.output) \(outcome.errors)")
            #expect(outcome.output.isEmpty)
            #expect(outcome.errors.contains("sync queue \(path)"), "\(outcome.errors)")
            #expect(outcome.errors.contains("SQLite: database is locked"), "\(outcome.errors)")
            #expect(outcome.errors.contains("held its write lock for more than 10 s"), "\(outcome.errors)")
            #expect(waited >= .seconds(9), "gave up after \(waited)")
            // Nothing changed.
            #expect(try SyncQueue(path: path).deadLetters().count == 3)
            #expect(try Self.pending(path) == ["B/3 tries 0"])
        } else {
            // Released a second from now, from a thread started now: a task could wait behind the other tests' work
            // for longer than the busy timeout before it even began (20 s in a full parallel run on two cores).
            let released = DispatchSemaphore(value: 0)
            let rollback = Mutex<Result<Void, any Error>?>(nil)
            Thread {
                Thread.sleep(forTimeInterval: 1)
                rollback.withLock { $0 = Result { try rollBack() } }
                released.signal()
            }.start()
            let outcome = try await CommandLineTests.blerig(["sync", "requeue", "--db", path])
            try await CommandLineTests.offPool {
                released.wait()
                return rollback.withLock { $0! }
            }.get()
            #expect(outcome.status == 0, "\(outcome.errors)")
            #expect(outcome.output == "requeued 3 dead letter(s) in \(path); 4 pending, 0 dead letter(s) left\n")
        }
        try app.close()
    }
}
