import Foundation
import Logging
import PostgresNIO

/// Databases made for one test or benchmark on a PostgreSQL server and dropped after, so that runs never meet
/// another's tables. Needs a role that may create databases.
public enum PostgresScratch {
    /// Creates a new, empty database next to `url`'s and returns the URL that names it.
    public static func create(beside url: PostgresURL, prefix: String) async throws(HistoryError) -> PostgresURL {
        var scratch = url
        scratch.database =
            "\(prefix)_\(UUID().uuidString.prefix(12).lowercased().replacingOccurrences(of: "-", with: ""))"
        try await admin(url, "CREATE DATABASE \"\(scratch.database)\"")
        return scratch
    }

    /// Drops `scratch`, disconnecting whoever is still on it; through `admin`'s database.
    public static func drop(_ scratch: PostgresURL, admin url: PostgresURL) async throws(HistoryError) {
        try await admin(url, "DROP DATABASE IF EXISTS \"\(scratch.database)\" WITH (FORCE)")
    }

    private static func admin(_ url: PostgresURL, _ sql: String) async throws(HistoryError) {
        do {
            let connection = try await PostgresConnection.connect(
                configuration: configuration(url), id: 1,
                logger: Logger(label: "blerig.history.postgres", factory: { _ in SwiftLogNoOpLogHandler() }))
            defer { Task { try? await connection.close() } }
            try await connection.query(PostgresQuery(unsafeSQL: sql), logger: connection.logger)
        } catch {
            throw HistoryError(database: url.description, message: "\(sql): \(PostgresHistory.describe(error))")
        }
    }

    static func configuration(_ url: PostgresURL) -> PostgresConnection.Configuration {
        switch url.endpoint {
        case .tcp(let host, let port):
            PostgresConnection.Configuration(
                host: host, port: port, username: url.user, password: url.password, database: url.database,
                tls: url.tls == .require ? .require(try! .init(configuration: .makeClientConfiguration())) : .disable)
        case .socket(let path):
            PostgresConnection.Configuration(
                unixSocketPath: path, username: url.user, password: url.password, database: url.database)
        }
    }
}
