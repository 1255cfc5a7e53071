import Foundation
import GRDB

/// Opening a SQLite file as a GRDB pool when other processes may open it at the same moment (two runs into one
/// `--out` share their history, an app and `blerig sync requeue` share a sync queue). Opening sets the file to WAL,
/// which needs the file to itself, and SQLite may refuse that at once with SQLITE_BUSY while another connection
/// opens it, without waiting in the busy handler. A refused open is tried again after a few milliseconds, until
/// `timeout` has passed; any other error is thrown at once.
public enum SQLiteOpening {
    public static func pool(
        path: String, configuration: Configuration, timeout: TimeInterval
    ) throws -> DatabasePool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while true {
            do {
                return try DatabasePool(path: path, configuration: configuration)
            } catch let error as DatabaseError
                where (error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED) && Date() < deadline
            {
                Thread.sleep(forTimeInterval: .random(in: 0.002...0.02))
            }
        }
    }
}
