/// Something the history database could not do: which database, what went wrong, and what to do about it.
public struct HistoryError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The database as the user named it (`reports/history.sqlite`, `postgres://ci@db.lab/blerig`), without a
    /// password.
    public var database: String
    /// One line: what failed and, where it helps, what to do.
    public var message: String

    public init(database: String, message: String) {
        self.database = database
        self.message = message
    }

    public var description: String { "history \(database): \(message)" }
}
