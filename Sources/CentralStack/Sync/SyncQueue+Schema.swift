import Foundation
import GRDB

/// The queue's schema history. Every version that ever shipped stays here unchanged, because a phone may still
/// hold a queue written by any of them; migrating one must keep every pending reading (the case study lost 200
/// users' data in a migration that emptied the queue).
///
/// - `v1`: `item(id, board, payload, createdAt)`: a reading record (14 bytes, docs/board-contract.md) from a board.
/// - `v2`: retry bookkeeping: `retryCount`, `lastError`.
/// - `v3`: the idempotency key (board serial + seq, unique) and dead letters. Rows are rebuilt into a new table:
///   `seq` comes from the payload's first four bytes; rows that v1/v2 held twice for the same key are merged into
///   the oldest (keeping the highest retry count); a payload too short to hold a seq goes to the dead letters
///   with why, never away.
extension SyncQueue {
    /// Versions in the order they shipped.
    public static let schemaVersions = ["v1", "v2", "v3"]

    static func migrator() -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(
                sql: """
                    CREATE TABLE item (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        board TEXT NOT NULL,
                        payload BLOB NOT NULL,
                        createdAt DOUBLE NOT NULL)
                    """)
        }
        migrator.registerMigration("v2") { db in
            try db.execute(sql: "ALTER TABLE item ADD COLUMN retryCount INTEGER NOT NULL DEFAULT 0")
            try db.execute(sql: "ALTER TABLE item ADD COLUMN lastError TEXT")
        }
        migrator.registerMigration("v3") { db in
            try db.execute(
                sql: """
                    CREATE TABLE deadLetter (
                        id INTEGER PRIMARY KEY,
                        board TEXT NOT NULL,
                        seq INTEGER,
                        payload BLOB NOT NULL,
                        createdAt DOUBLE NOT NULL,
                        retryCount INTEGER NOT NULL,
                        lastError TEXT NOT NULL,
                        deadAt DOUBLE NOT NULL)
                    """)
            try db.execute(
                sql: """
                    CREATE TABLE newItem (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        board TEXT NOT NULL,
                        seq INTEGER NOT NULL,
                        payload BLOB NOT NULL,
                        createdAt DOUBLE NOT NULL,
                        retryCount INTEGER NOT NULL DEFAULT 0,
                        lastError TEXT,
                        UNIQUE (board, seq))
                    """)
            let rows = try Row.fetchAll(
                db, sql: "SELECT id, board, payload, createdAt, retryCount, lastError FROM item ORDER BY id")
            for row in rows {
                let id: Int64 = row["id"]
                let board: String = row["board"]
                let payload: [UInt8] = Array((row["payload"] as Data?) ?? Data())
                let createdAt: Double = row["createdAt"]
                let retryCount: Int = row["retryCount"]
                let lastError: String? = row["lastError"]
                guard let seq = SyncQueue.sequence(of: payload) else {
                    try db.execute(
                        sql: """
                            INSERT INTO deadLetter (id, board, seq, payload, createdAt, retryCount, lastError, deadAt)
                            VALUES (?, ?, NULL, ?, ?, ?, ?, ?)
                            """,
                        arguments: [
                            id, board, Data(payload), createdAt, retryCount,
                            "migration v3: the \(payload.count)-byte payload holds no seq (needs 4 bytes)", createdAt,
                        ])
                    continue
                }
                // Keeps the oldest row of a key, with the highest retry count any copy had.
                try db.execute(
                    sql: """
                        INSERT INTO newItem (id, board, seq, payload, createdAt, retryCount, lastError)
                        VALUES (?, ?, ?, ?, ?, ?, ?)
                        ON CONFLICT (board, seq) DO UPDATE SET
                            retryCount = max(retryCount, excluded.retryCount),
                            lastError = coalesce(excluded.lastError, lastError)
                        """,
                    arguments: [id, board, Int64(seq), Data(payload), createdAt, retryCount, lastError])
            }
            try db.execute(sql: "DROP TABLE item")
            try db.execute(sql: "ALTER TABLE newItem RENAME TO item")
        }
        return migrator
    }

    /// The `seq` of a reading record: its first four bytes, little-endian.
    static func sequence(of payload: [UInt8]) -> UInt32? {
        guard payload.count >= 4 else { return nil }
        return UInt32(payload[0]) | UInt32(payload[1]) << 8 | UInt32(payload[2]) << 16 | UInt32(payload[3]) << 24
    }
}
