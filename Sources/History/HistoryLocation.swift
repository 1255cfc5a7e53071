import Foundation

/// Where the history lives, as `--history` names it: a SQLite file (the default, `reports/history.sqlite`), or a
/// PostgreSQL database that several rig hosts share (`postgres://user@host:5432/db`, or over a Unix socket
/// `postgres://user@/db?host=/run/postgresql`, as libpq writes it).
public enum HistoryLocation: Sendable, Hashable, CustomStringConvertible {
    case sqlite(path: String)
    case postgres(PostgresURL)

    /// The history beside a run's reports: `<out>/history.sqlite`.
    public static func beside(reports outputRoot: String) -> Self {
        .sqlite(path: (outputRoot as NSString).appendingPathComponent("history.sqlite"))
    }

    /// Reads a `--history` value: a `postgres://` or `postgresql://` URL, else a file path.
    public init(_ text: String) throws(HistoryError) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else {
            throw HistoryError(database: "''", message: "--history must name a file or a postgres:// URL, not ''")
        }
        let lower = trimmed.lowercased()
        if lower.hasPrefix("postgres://") || lower.hasPrefix("postgresql://") {
            self = .postgres(try PostgresURL(trimmed))
        } else if lower.contains("://") {
            throw HistoryError(
                database: trimmed,
                message: "unknown scheme: --history takes a SQLite file path or a postgres:// URL")
        } else {
            self = .sqlite(path: trimmed)
        }
    }

    /// The location as messages show it; a PostgreSQL URL without its password.
    public var description: String {
        switch self {
        case .sqlite(let path): path
        case .postgres(let url): url.description
        }
    }
}
