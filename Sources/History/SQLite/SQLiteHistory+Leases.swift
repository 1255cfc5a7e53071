import BLECore
import Foundation
import GRDB

/// Leases on SQLite: one host, so the host's wall clock is the lease clock. Each step is one `BEGIN IMMEDIATE`
/// transaction, which takes SQLite's write lock before it reads, so a check-then-take cannot interleave with
/// another process's. A run takes and gives back a lease per board, a thousand in a row for a large rig: the
/// statements are compiled once per connection (GRDB's statement cache), not once per lease.
extension SQLiteHistory {
    public func tryAcquire(
        resource: String, board: String, owner: String, token: String, ttl: Duration
    )
        async throws(HistoryError) -> LeaseAttempt
    {
        try await write { db in
            let now = Date().timeIntervalSince1970
            let select = try db.cachedStatement(sql: "SELECT * FROM leases WHERE resource = ?")
            if let row = try Row.fetchOne(select, arguments: [resource]),
                (row["token"] as String) != token, (row["expires_at"] as Double) > now
            {
                return .held(by: Self.lease(row), now: Date(timeIntervalSince1970: now))
            }
            try db.cachedStatement(
                sql: """
                    INSERT INTO leases (resource, board, owner, token, acquired_at, renewed_at, expires_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (resource) DO UPDATE SET board = excluded.board, owner = excluded.owner,
                      token = excluded.token, renewed_at = excluded.renewed_at, expires_at = excluded.expires_at,
                      acquired_at = CASE WHEN leases.token = excluded.token THEN leases.acquired_at
                        ELSE excluded.acquired_at END
                    """
            ).execute(arguments: [resource, board, owner, token, now, now, now + ttl.seconds])
            let row = try Row.fetchOne(select, arguments: [resource])!
            return .acquired(Self.lease(row))
        }
    }

    public func renew(resource: String, token: String, ttl: Duration) async throws(HistoryError) -> LeaseRecord? {
        try await write { db in
            let now = Date().timeIntervalSince1970
            try db.cachedStatement(
                sql: "UPDATE leases SET renewed_at = ?, expires_at = ? WHERE resource = ? AND token = ?"
            ).execute(arguments: [now, now + ttl.seconds, resource, token])
            guard db.changesCount > 0 else { return nil }
            return try Row.fetchOne(
                db.cachedStatement(sql: "SELECT * FROM leases WHERE resource = ?"), arguments: [resource]
            ).map(Self.lease)
        }
    }

    @discardableResult
    public func release(resource: String, token: String) async throws(HistoryError) -> Bool {
        try await write { db in
            try db.cachedStatement(sql: "DELETE FROM leases WHERE resource = ? AND token = ?")
                .execute(arguments: [resource, token])
            return db.changesCount > 0
        }
    }

    public func leases() async throws(HistoryError) -> (leases: [LeaseRecord], now: Date) {
        let leases = try await read { db in try Row.fetchAll(db, sql: HistoryQueries.leases).map(Self.lease) }
        return (leases, Date())
    }

    static func lease(_ row: Row) -> LeaseRecord {
        LeaseRecord(
            resource: row["resource"], board: row["board"], owner: row["owner"], token: row["token"],
            acquiredAt: Date(timeIntervalSince1970: row["acquired_at"]),
            renewedAt: Date(timeIntervalSince1970: row["renewed_at"]),
            expiresAt: Date(timeIntervalSince1970: row["expires_at"]))
    }
}
