import Foundation
import GRDB

/// Why the sync queue could not do what it was asked, with the database file it concerns. Nothing is lost when
/// one is thrown: the failed transaction is rolled back, and the board is not acknowledged for readings that did
/// not commit, so they are read again on the next sync.
public struct SyncQueueError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        /// The disk (or the database's size limit) is full: free space, then sync again.
        case full
        /// The file or its directory cannot be written.
        case readOnly
        /// The file is not a SQLite database, or its pages are damaged.
        case corrupt
        /// The schema is newer than this build knows: an older app opened a newer app's queue.
        case unknownSchema
        /// A SQLite database that is not a sync queue (``SyncQueue/existing(at:)``), left as it was.
        case notAQueue
        /// Another connection (the app syncing, another blerig) held the queue's write lock past the busy timeout.
        case busy
        /// Anything else SQLite reported.
        case other
    }

    public var kind: Kind
    /// The database file.
    public var path: String
    /// What the queue was doing, e.g. "enqueuing 17 readings".
    public var operation: String
    /// SQLite's own words.
    public var cause: String

    public init(kind: Kind, path: String, operation: String, cause: String) {
        self.kind = kind
        self.path = path
        self.operation = operation
        self.cause = cause
    }

    public var description: String {
        let advice =
            switch kind {
            case .full: "the disk is full; free space and sync again (nothing was committed, nothing is lost)"
            case .readOnly: "the file or its directory is read-only or missing; make both writable"
            case .corrupt: "the file is not a usable SQLite database; move it aside to start a new queue"
            case .unknownSchema: "the queue was written by a newer version; update the app"
            case .notAQueue: "nothing was changed; check that this is the app's sync queue file"
            case .busy:
                "another connection (an app syncing this queue, or another blerig) held its write lock for more than "
                    + "\(SyncQueue.busyTimeoutSeconds) s; nothing was committed: run it again once that write is done"
            case .other: "nothing was committed"
            }
        return "sync queue \(path): \(operation) failed: \(cause) — \(advice)"
    }

    /// Maps a GRDB error to a queue error for `path`.
    static func wrap(_ error: any Error, path: String, operation: String) -> SyncQueueError {
        if let error = error as? SyncQueueError { return error }
        guard let database = error as? DatabaseError else {
            return SyncQueueError(kind: .other, path: path, operation: operation, cause: "\(error)")
        }
        let kind: Kind =
            switch database.resultCode {
            case .SQLITE_FULL: .full
            case .SQLITE_READONLY, .SQLITE_CANTOPEN, .SQLITE_PERM: .readOnly
            case .SQLITE_CORRUPT, .SQLITE_NOTADB: .corrupt
            case .SQLITE_BUSY, .SQLITE_LOCKED: .busy
            default: .other
            }
        // GRDB's result code reads "5 (database is locked)": SQLite's message alone when the code says the same.
        let code = "\(database.resultCode)"
        let cause =
            switch database.message {
            case nil: code
            case let message? where code.hasSuffix("(\(message))"): "SQLite: \(message)"
            case let message?: "\(message) (\(code))"
            }
        return SyncQueueError(kind: kind, path: path, operation: operation, cause: cause)
    }
}
