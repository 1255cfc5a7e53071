import Foundation
import GRDB
import Testing

@testable import CentralStack

/// The persistent queue on real SQLite files: durability settings, idempotency, ordering, dead letters, and clear
/// errors for a full disk and a corrupt file.
@Suite("Sync queue")
struct SyncQueueTests {
    @Test("the file is in WAL mode and every connection commits with synchronous = FULL")
    func walAndFullSync() throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanup() }
        let queue = try SyncQueue(path: dir.file("q.sqlite"))
        try queue.enqueue(board: "SN1", records: [(1, record(1))], at: 0)
        #expect(try sqlite3(dir.file("q.sqlite"), "PRAGMA journal_mode;") == ["wal"])
        // synchronous is per connection: ask the queue's own writer.
        #expect(try queue.synchronousSetting() == 2)  // 2 = FULL
    }

    @Test("enqueuing the same reading twice is a no-op, across reopenings")
    func idempotent() throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanup() }
        let path = dir.file("q.sqlite")
        do {
            let queue = try SyncQueue(path: path)
            #expect(try queue.enqueue(board: "SN1", records: [(1, record(1)), (2, record(2))], at: 0) == 2)
            #expect(try queue.enqueue(board: "SN1", records: [(2, record(2)), (3, record(3))], at: 1) == 1)
            #expect(try queue.enqueue(board: "SN2", records: [(2, record(2))], at: 1) == 1)
        }
        let reopened = try SyncQueue(path: path)
        #expect(try reopened.enqueue(board: "SN1", records: [(1, record(1))], at: 2) == 0)
        #expect(try reopened.pendingCount() == 4)
        #expect(
            try sqlite3(path, "SELECT board || '/' || seq FROM item ORDER BY id;") == [
                "SN1/1", "SN1/2", "SN1/3", "SN2/2",
            ])
    }

    @Test("oldest first, in insertion order, limited")
    func ordering() throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanup() }
        let queue = try SyncQueue(path: dir.file("q.sqlite"))
        try queue.enqueue(board: "B", records: (10...19).map { ($0, record($0)) }, at: 0)
        try queue.enqueue(board: "A", records: (1...5).map { ($0, record($0)) }, at: 1)
        let oldest = try queue.oldest(limit: 12)
        #expect(oldest.map(\.key) == (10...19).map { "B/\($0)" } + ["A/1", "A/2"])
        #expect(oldest.first?.payload == record(10))
        try queue.delete(ids: oldest.prefix(3).map(\.id))
        #expect(try queue.oldest(limit: 1).map(\.key) == ["B/13"])
    }

    @Test("failures count retries and keep the error; dead letters keep the reading")
    func deadLetters() throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanup() }
        let queue = try SyncQueue(path: dir.file("q.sqlite"))
        try queue.enqueue(board: "B", records: [(1, record(1)), (2, record(2))], at: 0)
        let items = try queue.oldest(limit: 2)
        try queue.recordFailures([(items[0].id, "HTTP 500"), (items[1].id, "HTTP 500")], deadLetter: [], at: 1)
        try queue.recordFailures([(items[0].id, "HTTP 422 bad")], deadLetter: [items[0].id], at: 2)
        #expect(try queue.pendingCount() == 1)
        let pending = try queue.oldest(limit: 5)
        #expect(pending.map(\.retryCount) == [1])
        #expect(pending.map(\.lastError) == ["HTTP 500"])
        let dead = try queue.deadLetters()
        #expect(dead.count == 1)
        #expect(dead.first?.seq == 1)
        #expect(dead.first?.retryCount == 2)
        #expect(dead.first?.lastError == "HTTP 422 bad")
        #expect(dead.first?.payload == record(1))
        #expect(try queue.holds(board: "B", seq: 1))
        // A dead-lettered reading queued again (the board re-sent it) stays a dead letter, not a second copy.
        #expect(try queue.enqueue(board: "B", records: [(1, record(1))], at: 3) == 0)
        #expect(try sqlite3(dir.file("q.sqlite"), "SELECT count(*) FROM deadLetter;") == ["1"])
    }

    @Test("a full database refuses the batch with the path, and keeps what was committed")
    func fullDisk() throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanup() }
        let path = dir.file("q.sqlite")
        let queue = try SyncQueue(path: path)
        try queue.enqueue(board: "B", records: [(1, record(1))], at: 0)
        // SQLite answers SQLITE_FULL when the page limit is reached, exactly as when the disk is full.
        try queue.limitPages(to: try queue.pageCount())
        let big = (2...5_000).map { (UInt32($0), record(UInt32($0)) + [UInt8](repeating: 7, count: 200)) }
        #expect {
            try queue.enqueue(board: "B", records: big, at: 1)
        } throws: { error in
            guard let error = error as? SyncQueueError else { return false }
            return error.kind == .full && error.description.contains(path) && error.description.contains("full")
        }
        #expect(try queue.pendingCount() == 1)
        #expect(try queue.oldest(limit: 5).map(\.seq) == [1])
    }

    @Test("a read-only queue file is refused with its path and kind, and its readings stay")
    func readOnly() throws {
        let dir = TemporaryDirectory()
        defer {
            _ = try? run("/usr/bin/chattr", ["-i", dir.file("q.sqlite")])
            dir.cleanup()
        }
        let path = dir.file("q.sqlite")
        do {
            let queue = try SyncQueue(path: path)
            try queue.enqueue(board: "B", records: [(1, record(1))], at: 0)
        }
        // Root writes through file modes, so as root the file is made immutable instead (chattr +i).
        if getuid() == 0 {
            guard (try? run("/usr/bin/chattr", ["+i", path])) == 0 else {
                Issue.record("chattr +i is not available here: cannot make a read-only file as root")
                return
            }
        } else {
            try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: path)
        }
        #expect {
            let queue = try SyncQueue(path: path)
            try queue.enqueue(board: "B", records: [(2, record(2))], at: 1)
        } throws: { error in
            guard let error = error as? SyncQueueError else { return false }
            return error.kind == .readOnly && error.description.contains(path)
        }
        #expect(try sqlite3(path, "SELECT board || '/' || seq FROM item;") == ["B/1"])
    }

    @Test("a file that is not a database is refused with its path, and left as it was")
    func corrupt() throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanup() }
        let path = dir.file("q.sqlite")
        let garbage = Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        try garbage.write(to: URL(fileURLWithPath: path))
        #expect {
            _ = try SyncQueue(path: path)
        } throws: { error in
            guard let error = error as? SyncQueueError else { return false }
            return error.kind == .corrupt && error.description.contains(path)
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == garbage)
    }

    @Test("a queue from a newer schema is refused, not migrated")
    func newerSchema() throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanup() }
        let path = dir.file("q.sqlite")
        _ = try SyncQueue(path: path)
        _ = try sqlite3(path, "INSERT INTO grdb_migrations VALUES ('v9');")
        #expect {
            _ = try SyncQueue(path: path)
        } throws: { error in
            (error as? SyncQueueError)?.kind == .unknownSchema
        }
    }
}
