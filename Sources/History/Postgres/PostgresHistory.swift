import Foundation
import Logging
import PostgresNIO

/// History in a PostgreSQL database that several rig hosts share, through postgres-nio: the same schema as
/// SQLite's, migrated under an advisory lock so that two hosts starting at once do not both migrate. Lease times
/// come from the server's clock, so hosts whose clocks disagree still agree on when a lease expires.
public final class PostgresHistory: RunHistory {
    public let location: HistoryLocation
    let client: PostgresClient
    let url: PostgresURL
    private let runner: Task<Void, Never>
    let logger = Logger(label: "blerig.history.postgres", factory: { _ in SwiftLogNoOpLogHandler() })

    private init(url: PostgresURL, client: PostgresClient, runner: Task<Void, Never>) {
        self.url = url
        location = .postgres(url)
        self.client = client
        self.runner = runner
    }

    /// Connects, and migrates the database to the newest schema.
    public static func connect(_ url: PostgresURL) async throws(HistoryError) -> PostgresHistory {
        var configuration =
            switch url.endpoint {
            case .tcp(let host, let port):
                PostgresClient.Configuration(
                    host: host, port: port, username: url.user, password: url.password, database: url.database,
                    tls: url.tls == .disable
                        ? .disable
                        : url.tls == .require
                            ? .require(.makeClientConfiguration()) : .prefer(.makeClientConfiguration()))
            case .socket(let path):
                PostgresClient.Configuration(
                    unixSocketPath: path, username: url.user, password: url.password, database: url.database)
            }
        configuration.options.connectTimeout = .seconds(10)
        configuration.options.maximumConnections = 4
        configuration.options.keepAliveBehavior = nil
        let client = PostgresClient(
            configuration: configuration,
            backgroundLogger: Logger(label: "blerig.history.postgres", factory: { _ in SwiftLogNoOpLogHandler() }))
        let runner = Task { await client.run() }
        let history = PostgresHistory(url: url, client: client, runner: runner)
        do { try await history.migrate() } catch {
            await history.close()
            throw error
        }
        return history
    }

    /// A key for `pg_advisory_xact_lock`, the same in every blerig: "blerig h" as a 64-bit number.
    static let migrationLock: Int64 = 0x626c_6572_6967_2068

    private func migrate() async throws(HistoryError) {
        let url = url
        try await perform {
            try await self.client.withTransaction(logger: self.logger) { connection in
                try await connection.query("SELECT pg_advisory_xact_lock(\(Self.migrationLock))", logger: self.logger)
                try await connection.query(
                    PostgresQuery(unsafeSQL: HistorySchema.versionTable(.postgres)), logger: self.logger)
                var applied: Set<Int> = []
                for try await version in try await connection.query(
                    "SELECT version FROM history_schema", logger: self.logger
                ).decode(Int.self) {
                    applied.insert(version)
                }
                if let newest = applied.max(), newest > HistorySchema.latestVersion {
                    throw HistoryError(
                        database: url.description,
                        message: "the database is at schema version \(newest), newer than this blerig knows "
                            + "(\(HistorySchema.latestVersion)): use a newer blerig, or another --history")
                }
                for migration in HistorySchema.migrations where !applied.contains(migration.version) {
                    for statement in migration.statements {
                        try await connection.query(
                            PostgresQuery(unsafeSQL: statement.sql(.postgres)), logger: self.logger)
                    }
                    try await connection.query(
                        """
                        INSERT INTO history_schema (version, name, applied_at)
                        VALUES (\(migration.version), \(migration.name), extract(epoch FROM clock_timestamp())::float8)
                        """, logger: self.logger)
                }
            }
        }
    }

    public func schemaVersion() async throws(HistoryError) -> Int {
        try await perform {
            var version = 0
            for try await value in try await self.client.query(
                "SELECT COALESCE(MAX(version), 0)::int8 FROM history_schema", logger: self.logger
            ).decode(Int.self) {
                version = value
            }
            return version
        }
    }

    public func close() async {
        runner.cancel()
        _ = await runner.value
    }

    /// Runs `body`, turning what the server or the connection said into a ``HistoryError``.
    func perform<T>(_ body: () async throws -> T) async throws(HistoryError) -> T {
        do { return try await body() } catch let error as HistoryError { throw error } catch {
            throw HistoryError(database: url.description, message: Self.describe(error))
        }
    }

    /// postgres-nio's errors hide the server's message from `description`; this brings it out.
    static func describe(_ error: any Error) -> String {
        guard let error = error as? PSQLError else { return "\(error)" }
        if let info = error.serverInfo, let message = info[.message] {
            let code = info[.sqlState].map { " (SQLSTATE \($0))" } ?? ""
            let detail = info[.detail].map { ": \($0)" } ?? ""
            return "PostgreSQL: \(message)\(detail)\(code)"
        }
        if let underlying = error.underlying { return "cannot reach the server: \(underlying)" }
        return "PostgreSQL client error \(error.code)"
    }
}
