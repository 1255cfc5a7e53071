import Foundation
import GRDB
import Testing

@testable import CentralStack

/// Every schema version that ever shipped, filled with pending readings the way that version wrote them, then
/// opened by today's queue: nothing may be lost (the case study lost 200 users' data in exactly such a
/// migration). The result is checked with the sqlite3 shell, not only through the queue.
@Suite("Sync queue migrations")
struct SyncQueueMigrationTests {
    /// A pending row as an old version stored it.
    struct OldRow {
        var board: String
        var payload: [UInt8]
        var retryCount = 0
        var lastError: String?
    }

    /// Readings from two boards, with what old versions allowed and v3 forbids: the same reading twice (no
    /// idempotency key before v3), and a payload too short to hold a seq.
    static let rows: [OldRow] = {
        var rows: [OldRow] = []
        for seq in UInt32(1)...120 {
            rows.append(OldRow(board: "SN-A", payload: record(seq), retryCount: Int(seq % 4)))
        }
        for seq in UInt32(7)...30 { rows.append(OldRow(board: "SN-B", payload: record(seq))) }
        rows.append(OldRow(board: "SN-A", payload: record(5), retryCount: 3, lastError: "HTTP 503"))  // a duplicate
        rows.append(OldRow(board: "SN-B", payload: [0x01, 0x02]))  // no seq
        return rows
    }()

    /// Creates a file at schema `version` (through the real migrator, stopped there) and fills it as that
    /// version's code wrote rows.
    static func fill(_ path: String, at version: String) throws {
        let pool = try DatabasePool(path: path)
        try SyncQueue.migrator().migrate(pool, upTo: version)
        try pool.write { db in
            for (index, row) in rows.enumerated() {
                let createdAt = Double(1_000 + index)
                switch version {
                case "v1":
                    try db.execute(
                        sql: "INSERT INTO item (board, payload, createdAt) VALUES (?, ?, ?)",
                        arguments: [row.board, Data(row.payload), createdAt])
                case "v2":
                    try db.execute(
                        sql:
                            "INSERT INTO item (board, payload, createdAt, retryCount, lastError) VALUES (?, ?, ?, ?, ?)",
                        arguments: [row.board, Data(row.payload), createdAt, row.retryCount, row.lastError])
                default:
                    Issue.record("no filler for \(version)")
                }
            }
        }
    }

    /// The versions before the newest: each must migrate without loss.
    static let earlier = Array(SyncQueue.schemaVersions.dropLast())

    @Test("a queue filled under an earlier schema migrates to the newest with every reading", arguments: earlier)
    func migratesWithoutLoss(from version: String) throws {
        let dir = TemporaryDirectory("migration")
        defer { dir.cleanup() }
        let path = dir.file("q.sqlite")
        try Self.fill(path, at: version)
        #expect(try sqlite3(path, "SELECT count(*) FROM item;") == ["\(Self.rows.count)"])

        let queue = try SyncQueue(path: path)
        #expect(try queue.appliedVersions() == SyncQueue.schemaVersions)

        // Every distinct (board, seq) of the old rows is pending exactly once, with its payload, in the old order.
        var expected: [String] = []
        for row in Self.rows {
            guard let seq = SyncQueue.sequence(of: row.payload) else { continue }
            let key = "\(row.board)/\(seq)"
            if !expected.contains(key) { expected.append(key) }
        }
        let pending = try queue.oldest(limit: 10_000)
        #expect(pending.map(\.key) == expected)
        for item in pending { #expect(item.payload == record(item.seq)) }

        // Independently of GRDB: the sqlite3 shell sees the same rows and a unique key.
        #expect(try sqlite3(path, "SELECT count(*) FROM item;") == ["\(expected.count)"])
        #expect(try sqlite3(path, "SELECT count(DISTINCT board || '/' || seq) FROM item;") == ["\(expected.count)"])
        #expect(try sqlite3(path, "SELECT count(*) FROM item WHERE length(payload) <> 14;") == ["0"])
        #expect(try sqlite3(path, "PRAGMA integrity_check;") == ["ok"])
        let schema = try sqlite3(path, "SELECT sql FROM sqlite_master WHERE name = 'item';").joined()
        #expect(schema.contains("UNIQUE (board, seq)"))

        // The reading with no seq is not dropped: it is a dead letter that says why.
        let dead = try queue.deadLetters()
        #expect(dead.count == 1)
        #expect(dead.first?.payload == [0x01, 0x02])
        #expect(dead.first?.lastError.contains("migration v3") == true)
        #expect(try sqlite3(path, "SELECT count(*) FROM deadLetter;") == ["1"])

        // v2 bookkeeping survives: the merged duplicate keeps the highest retry count and its error.
        if version == "v2" {
            let five = try #require(pending.first { $0.key == "SN-A/5" })
            #expect(five.retryCount == 3)
            #expect(five.lastError == "HTTP 503")
            #expect(pending.first { $0.key == "SN-A/6" }?.retryCount == 2)
        }
        // And the migrated queue works: a known reading is still a no-op, a new one is queued after the old ones.
        #expect(try queue.enqueue(board: "SN-A", records: [(1, record(1)), (121, record(121))], at: 9_999) == 1)
        #expect(try queue.oldest(limit: 10_000).last?.key == "SN-A/121")
    }

    @Test("an empty queue of every earlier version migrates", arguments: earlier)
    func emptyMigrates(from version: String) throws {
        let dir = TemporaryDirectory("migration")
        defer { dir.cleanup() }
        let path = dir.file("q.sqlite")
        let pool = try DatabasePool(path: path)
        try SyncQueue.migrator().migrate(pool, upTo: version)
        let queue = try SyncQueue(path: path)
        #expect(try queue.pendingCount() == 0)
        #expect(try queue.appliedVersions() == SyncQueue.schemaVersions)
    }
}
