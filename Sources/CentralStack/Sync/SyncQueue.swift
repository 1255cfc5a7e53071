import Foundation
import GRDB

/// A reading waiting for upload: one row of the queue.
public struct QueuedReading: Sendable, Hashable {
    public var id: Int64
    /// The board's serial number (Device Information), half of the idempotency key.
    public var board: String
    /// The reading's `seq`, the other half.
    public var seq: UInt32
    /// The 14-byte reading record as the board sent it.
    public var payload: [UInt8]
    /// When the central queued it, in seconds on the caller's clock.
    public var createdAt: Double
    /// Failed upload attempts so far.
    public var retryCount: Int
    public var lastError: String?

    public init(
        id: Int64, board: String, seq: UInt32, payload: [UInt8], createdAt: Double, retryCount: Int, lastError: String?
    ) {
        self.id = id
        self.board = board
        self.seq = seq
        self.payload = payload
        self.createdAt = createdAt
        self.retryCount = retryCount
        self.lastError = lastError
    }

    /// `serial/seq`: what the ingest dedupes by.
    public var key: String { SyncQueue.key(board: board, seq: seq) }
}

/// A reading that failed `maxAttempts` uploads: kept, reported, never dropped.
public struct DeadLetter: Sendable, Hashable {
    public var id: Int64
    public var board: String
    /// Nil only for a row that a schema migration could not give one (see ``SyncQueue/schemaVersions``).
    public var seq: UInt32?
    public var payload: [UInt8]
    public var createdAt: Double
    public var retryCount: Int
    public var lastError: String
    public var deadAt: Double
}

/// The central's persistent sync queue: SQLite through GRDB, in WAL mode, with `synchronous = FULL`.
///
/// Why FULL: the board frees the records the central acknowledges, so once `enqueue` returns the readings must
/// survive not only a crash of the app (WAL with NORMAL already does) but a power loss or kernel panic of the
/// phone; with NORMAL the last transactions of the WAL may be lost then. FULL syncs the WAL on every commit.
///
/// Each reading is keyed by board serial + seq (unique): queueing a reading again is a no-op.
public final class SyncQueue: Sendable {
    public let path: String
    private let pool: DatabasePool

    /// How long a write waits for another connection's write lock before it fails as ``SyncQueueError/Kind/busy``.
    public static let busyTimeoutSeconds = 10

    /// Opens (creating it if needed) the queue at `path` and migrates it to the newest schema.
    public init(path: String) throws(SyncQueueError) {
        self.path = path
        var configuration = Configuration()
        configuration.busyMode = .timeout(TimeInterval(Self.busyTimeoutSeconds))
        do {
            pool = try SQLiteOpening.pool(
                path: path, configuration: configuration, timeout: TimeInterval(Self.busyTimeoutSeconds))
            // GRDB sets synchronous = NORMAL when it puts a pool in WAL mode, after `prepareDatabase`; the pool
            // has one writer connection for its life, and commits happen only there.
            try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
        } catch {
            throw SyncQueueError.wrap(error, path: path, operation: "opening")
        }
        do {
            let migrator = Self.migrator()
            let known = Set(Self.schemaVersions)
            let applied = try pool.read { db in try migrator.appliedIdentifiers(db) }
            if let unknown = applied.subtracting(known).sorted().first {
                throw SyncQueueError(
                    kind: .unknownSchema, path: path, operation: "opening",
                    cause: "schema version \(unknown) is not one of \(Self.schemaVersions.joined(separator: ", "))")
            }
            try Self.migrate(migrator, pool)
        } catch {
            throw SyncQueueError.wrap(error, path: path, operation: "migrating the schema")
        }
    }

    /// Runs the migrations not applied yet. Another process may be migrating the same new file at the same moment
    /// (an app and `blerig sync requeue`): GRDB reads what is applied before each migration's transaction, so the
    /// one that commits second fails ("table item already exists", or a busy snapshot). Each migration is a
    /// transaction of its own, so the failed one left nothing; what is applied is read again and the rest run.
    private static func migrate(_ migrator: DatabaseMigrator, _ pool: DatabasePool) throws {
        var attempt = 0
        while true {
            do {
                try migrator.migrate(pool)
                return
            } catch {
                attempt += 1
                if try pool.read({ db in try migrator.hasCompletedMigrations(db) }) { return }
                guard attempt < schemaVersions.count + 2 else { throw error }
            }
        }
    }

    /// Opens the queue at `path` only if the file already is one: a SQLite database whose migrations include `v1`
    /// and that has the `item` table. That is checked on a read-only connection first, so any other database (a
    /// run history, another app's file) is left exactly as it was, where ``init(path:)`` would have migrated it.
    public static func existing(at path: String) throws(SyncQueueError) -> SyncQueue {
        do {
            var configuration = Configuration()
            configuration.readonly = true
            let check = try DatabaseQueue(path: path, configuration: configuration)
            let isQueue = try check.read { db in
                try db.tableExists("grdb_migrations") && db.tableExists("item")
                    && String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations").contains("v1")
            }
            try check.close()
            guard isQueue else {
                throw SyncQueueError(
                    kind: .notAQueue, path: path, operation: "opening",
                    cause: "the database has no sync queue in it (no item table, or no v1 migration)")
            }
        } catch {
            throw SyncQueueError.wrap(error, path: path, operation: "opening")
        }
        return try SyncQueue(path: path)
    }

    public static func key(board: String, seq: UInt32) -> String { "\(board)/\(seq)" }

    private func write<T>(_ operation: String, _ body: (Database) throws -> T) throws(SyncQueueError) -> T {
        do { return try pool.write(body) } catch { throw SyncQueueError.wrap(error, path: path, operation: operation) }
    }

    private func read<T>(_ operation: String, _ body: (Database) throws -> T) throws(SyncQueueError) -> T {
        do { return try pool.read(body) } catch { throw SyncQueueError.wrap(error, path: path, operation: operation) }
    }

    /// Queues readings of `board` in one durable transaction; returns how many were new. When this returns,
    /// they are on disk; when it throws, none of them is (and the board must not be acknowledged).
    @discardableResult
    public func enqueue(
        board: String, records: [(seq: UInt32, payload: [UInt8])], at now: Double
    ) throws(SyncQueueError)
        -> Int
    {
        try write("enqueuing \(records.count) readings of \(board)") { db in
            var inserted = 0
            for record in records {
                // A key that is pending or dead-lettered is not queued again.
                try db.execute(
                    sql: """
                        INSERT OR IGNORE INTO item (board, seq, payload, createdAt)
                        SELECT ?1, ?2, ?3, ?4
                        WHERE NOT EXISTS (SELECT 1 FROM deadLetter WHERE board = ?1 AND seq = ?2)
                        """,
                    arguments: [board, Int64(record.seq), Data(record.payload), now])
                inserted += db.changesCount
            }
            return inserted
        }
    }

    /// The oldest `limit` pending readings, oldest first.
    public func oldest(limit: Int) throws(SyncQueueError) -> [QueuedReading] {
        try read("reading the oldest \(limit) readings") { db in
            try Row.fetchAll(
                db,
                sql: "SELECT id, board, seq, payload, createdAt, retryCount, lastError FROM item ORDER BY id LIMIT ?",
                arguments: [limit]
            ).map { row in
                QueuedReading(
                    id: row["id"], board: row["board"], seq: UInt32(truncatingIfNeeded: row["seq"] as Int64),
                    payload: Array(row["payload"] as Data), createdAt: row["createdAt"], retryCount: row["retryCount"],
                    lastError: row["lastError"])
            }
        }
    }

    /// Removes readings the ingest confirmed.
    public func delete(ids: [Int64]) throws(SyncQueueError) {
        guard !ids.isEmpty else { return }
        try write("deleting \(ids.count) uploaded readings") { db in
            for id in ids { try db.execute(sql: "DELETE FROM item WHERE id = ?", arguments: [id]) }
        }
    }

    /// Counts a failed attempt for each reading; those in `deadLetter` move to the dead letters in the same
    /// transaction.
    public func recordFailures(
        _ failures: [(id: Int64, error: String)], deadLetter: Set<Int64>, at now: Double
    ) throws(SyncQueueError) {
        guard !failures.isEmpty else { return }
        try write("recording \(failures.count) failed uploads") { db in
            for failure in failures {
                try db.execute(
                    sql: "UPDATE item SET retryCount = retryCount + 1, lastError = ? WHERE id = ?",
                    arguments: [failure.error, failure.id])
                guard deadLetter.contains(failure.id) else { continue }
                try db.execute(
                    sql: """
                        INSERT INTO deadLetter (id, board, seq, payload, createdAt, retryCount, lastError, deadAt)
                        SELECT id, board, seq, payload, createdAt, retryCount, lastError, ? FROM item WHERE id = ?
                        """,
                    arguments: [now, failure.id])
                try db.execute(sql: "DELETE FROM item WHERE id = ?", arguments: [failure.id])
            }
        }
    }

    /// Pending readings (not dead letters).
    public func pendingCount() throws(SyncQueueError) -> Int {
        try read("counting pending readings") { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM item") ?? 0 }
    }

    public func deadLetters() throws(SyncQueueError) -> [DeadLetter] {
        try read("reading the dead letters") { db in
            try Row.fetchAll(db, sql: "SELECT * FROM deadLetter ORDER BY id").map { row in
                DeadLetter(
                    id: row["id"], board: row["board"],
                    seq: (row["seq"] as Int64?).map { UInt32(truncatingIfNeeded: $0) },
                    payload: Array(row["payload"] as Data), createdAt: row["createdAt"], retryCount: row["retryCount"],
                    lastError: row["lastError"], deadAt: row["deadAt"])
            }
        }
    }

    /// Moves dead letters back to the queue with their attempts reset, in one transaction: every one with a seq,
    /// or only those of `board`. They keep their key, so one the ingest already holds is deduplicated there. Returns how
    /// many were requeued.
    @discardableResult
    public func requeueDeadLetters(board: String? = nil) throws(SyncQueueError) -> Int {
        try write("requeuing dead letters" + (board.map { " of \($0)" } ?? "")) { db in
            // A letter without a seq (a payload too short to hold one) has no key to queue under: it stays.
            let filter = " WHERE seq IS NOT NULL" + (board == nil ? "" : " AND board = ?")
            let arguments: StatementArguments = board.map { [$0] } ?? []
            try db.execute(
                sql: """
                    INSERT OR IGNORE INTO item (board, seq, payload, createdAt)
                    SELECT board, seq, payload, createdAt FROM deadLetter\(filter) ORDER BY id
                    """, arguments: arguments)
            let requeued = db.changesCount
            try db.execute(sql: "DELETE FROM deadLetter\(filter)", arguments: arguments)
            return requeued
        }
    }

    /// Whether `board`'s reading `seq` is pending or dead-lettered.
    public func holds(board: String, seq: UInt32) throws(SyncQueueError) -> Bool {
        try read("looking up \(Self.key(board: board, seq: seq))") { db in
            try Bool.fetchOne(
                db,
                sql: """
                    SELECT EXISTS (SELECT 1 FROM item WHERE board = ?1 AND seq = ?2)
                        OR EXISTS (SELECT 1 FROM deadLetter WHERE board = ?1 AND seq = ?2)
                    """, arguments: [board, Int64(seq)]) ?? false
        }
    }

    /// `PRAGMA synchronous` of the queue's writer connection (2 = FULL).
    func synchronousSetting() throws(SyncQueueError) -> Int {
        try write("reading PRAGMA synchronous") { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") ?? -1 }
    }

    /// Database pages in use.
    func pageCount() throws(SyncQueueError) -> Int {
        try read("reading the page count") { db in try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0 }
    }

    /// Caps the file at `pages` pages for the writer connection: SQLite then fails writes with SQLITE_FULL,
    /// exactly as on a full disk (for tests).
    func limitPages(to pages: Int) throws(SyncQueueError) {
        try write("limiting the page count") { db in try db.execute(sql: "PRAGMA max_page_count = \(pages)") }
    }

    /// The schema versions applied to the file, oldest first.
    public func appliedVersions() throws(SyncQueueError) -> [String] {
        try read("reading the schema version") { db in
            try Self.migrator().appliedMigrations(db)
        }
    }
}
