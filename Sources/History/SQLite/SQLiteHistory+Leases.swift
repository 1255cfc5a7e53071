import BLECore
import Foundation
import GRDB

/// Leases on SQLite: one host, so the host's wall clock is the lease clock. Each step is one `BEGIN IMMEDIATE`
/// transaction, which takes SQLite's write lock before it reads, so a check-then-take cannot interleave with
/// another process's. A run takes, renews and gives back its boards' leases together, a thousand in one
/// transaction for a large rig, with statements compiled once per connection (GRDB's statement cache).
extension SQLiteHistory {
    public func tryAcquire(
        resource: String, board: String, owner: String, token: String, ttl: Duration
    )
        async throws(HistoryError) -> LeaseAttempt
    {
        try await write { db in
            try Self.take(LeaseRequest(resource: resource, board: board), owner: owner, token: token, ttl: ttl, in: db)
        }
    }

    /// In one transaction: a thousand boards are taken in one write, not a thousand.
    public func tryAcquire(
        _ requests: [LeaseRequest], owner: String, token: String, ttl: Duration
    )
        async throws(HistoryError) -> LeasePrefix
    {
        try await write { db in
            var prefix = LeasePrefix(acquired: [])
            for request in requests {
                switch try Self.take(request, owner: owner, token: token, ttl: ttl, in: db) {
                case .acquired(let record): prefix.acquired.append(record)
                case .held(let holder, let now):
                    prefix.stoppedBy = holder
                    prefix.now = now
                    return prefix
                }
            }
            return prefix
        }
    }

    public func renew(resource: String, token: String, ttl: Duration) async throws(HistoryError) -> LeaseRecord? {
        try await write { db in
            guard try Self.extend(resource, token: token, ttl: ttl, in: db) else { return nil }
            return try Row.fetchOne(
                db.cachedStatement(sql: "SELECT * FROM leases WHERE resource = ?"), arguments: [resource]
            ).map(Self.lease)
        }
    }

    /// In one transaction.
    public func renew(resources: [String], token: String, ttl: Duration) async throws(HistoryError) -> Set<String> {
        try await write { db in
            Set(try resources.filter { try !Self.extend($0, token: token, ttl: ttl, in: db) })
        }
    }

    @discardableResult
    public func release(resource: String, token: String) async throws(HistoryError) -> Bool {
        try await write { db in try Self.remove(resource, token: token, in: db) }
    }

    /// In one transaction.
    public func release(resources: [String], token: String) async throws(HistoryError) {
        try await write { db in
            for resource in resources { try Self.remove(resource, token: token, in: db) }
        }
    }

    /// Takes `request`'s lease unless another token holds it unexpired; inside the caller's write transaction.
    private static func take(
        _ request: LeaseRequest, owner: String, token: String, ttl: Duration, in db: Database
    ) throws -> LeaseAttempt {
        let now = Date().timeIntervalSince1970
        let select = try db.cachedStatement(sql: "SELECT * FROM leases WHERE resource = ?")
        if let row = try Row.fetchOne(select, arguments: [request.resource]),
            (row["token"] as String) != token, (row["expires_at"] as Double) > now
        {
            return .held(by: lease(row), now: Date(timeIntervalSince1970: now))
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
        ).execute(arguments: [request.resource, request.board, owner, token, now, now, now + ttl.seconds])
        return .acquired(lease(try Row.fetchOne(select, arguments: [request.resource])!))
    }

    /// Extends `resource`'s lease if `token` holds it; whether it did.
    private static func extend(_ resource: String, token: String, ttl: Duration, in db: Database) throws -> Bool {
        let now = Date().timeIntervalSince1970
        try db.cachedStatement(
            sql: "UPDATE leases SET renewed_at = ?, expires_at = ? WHERE resource = ? AND token = ?"
        ).execute(arguments: [now, now + ttl.seconds, resource, token])
        return db.changesCount > 0
    }

    /// Removes `resource`'s lease if `token` holds it; whether it did.
    @discardableResult
    private static func remove(_ resource: String, token: String, in db: Database) throws -> Bool {
        try db.cachedStatement(sql: "DELETE FROM leases WHERE resource = ? AND token = ?")
            .execute(arguments: [resource, token])
        return db.changesCount > 0
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
