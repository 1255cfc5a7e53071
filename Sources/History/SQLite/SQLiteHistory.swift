import CentralStack
import Foundation
import GRDB

/// History in one SQLite file through GRDB: the embedded default, `reports/history.sqlite`. WAL mode, so that
/// readers never wait for a writer; every write is one `BEGIN IMMEDIATE` transaction, so that two processes on
/// the same file take turns instead of failing halfway (a busy database is waited for, up to 30 s).
public final class SQLiteHistory: RunHistory {
    public let location: HistoryLocation
    let pool: DatabasePool
    let path: String

    /// Opens the file at `path`, creating it and its directory if needed, and migrates it to the newest schema.
    public init(path: String) throws(HistoryError) {
        self.path = path
        location = .sqlite(path: path)
        let directory = (path as NSString).deletingLastPathComponent
        do {
            if !directory.isEmpty {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            }
            var configuration = Configuration()
            configuration.busyMode = .timeout(Self.busyTimeout)
            configuration.label = "blerig.history"
            pool = try SQLiteOpening.pool(path: path, configuration: configuration, timeout: Self.busyTimeout)
        } catch {
            throw HistoryError(database: path, message: "cannot open: \(Self.describe(error))")
        }
        try migrate()
    }

    /// How long a busy database is waited for, in seconds.
    static let busyTimeout: TimeInterval = 30

    private func migrate() throws(HistoryError) {
        let path = path
        try perform {
            try self.pool.writeWithoutTransaction { db in
                try db.inTransaction(.immediate) {
                    try db.execute(sql: HistorySchema.versionTable(.sqlite))
                    let applied = Set(try Int.fetchAll(db, sql: "SELECT version FROM history_schema"))
                    if let newest = applied.max(), newest > HistorySchema.latestVersion {
                        throw HistoryError(
                            database: path,
                            message: "the database is at schema version \(newest), newer than this blerig knows "
                                + "(\(HistorySchema.latestVersion)): use a newer blerig, or another --history")
                    }
                    for migration in HistorySchema.migrations where !applied.contains(migration.version) {
                        for statement in migration.statements { try db.execute(sql: statement.sql(.sqlite)) }
                        try db.execute(
                            sql: "INSERT INTO history_schema (version, name, applied_at) VALUES (?, ?, ?)",
                            arguments: [migration.version, migration.name, Date().timeIntervalSince1970])
                    }
                    return .commit
                }
            }
        }
    }

    public func schemaVersion() async throws(HistoryError) -> Int {
        try await read { db in try Int.fetchOne(db, sql: "SELECT MAX(version) FROM history_schema") ?? 0 }
    }

    public func close() async {
        try? pool.close()
    }

    /// Runs `body` in one `BEGIN IMMEDIATE` transaction.
    func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws(HistoryError) -> T {
        let pool = pool
        return try await performAsync {
            try await pool.writeWithoutTransaction { db in
                var value: T?
                try db.inTransaction(.immediate) {
                    value = try body(db)
                    return .commit
                }
                return value!
            }
        }
    }

    func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws(HistoryError) -> T {
        let pool = pool
        return try await performAsync { try await pool.read(body) }
    }

    private func perform<T>(_ body: () throws -> T) throws(HistoryError) -> T {
        do { return try body() } catch let error as HistoryError { throw error } catch {
            throw HistoryError(database: path, message: Self.describe(error))
        }
    }

    private func performAsync<T: Sendable>(_ body: () async throws -> T) async throws(HistoryError) -> T {
        do { return try await body() } catch let error as HistoryError { throw error } catch {
            throw HistoryError(database: path, message: Self.describe(error))
        }
    }

    static func describe(_ error: any Error) -> String {
        if let error = error as? DatabaseError {
            return "SQLite error \(error.resultCode.rawValue): \(error.message ?? "\(error.resultCode)")"
        }
        return "\(error)"
    }
}
