import BLECore
import Foundation
import PostgresNIO

/// Leases on PostgreSQL: one `INSERT … ON CONFLICT DO UPDATE … WHERE` statement takes a lease that is free,
/// expired, or already ours, atomically (a concurrent taker waits on the row lock, then sees the new holder).
/// Times are the server's `clock_timestamp()`, so every host judges expiry by the same clock. Several leases are
/// taken one statement each (each atomic: a run takes its boards in order, so no step needs the next), and renewed
/// or given back in one statement.
extension PostgresHistory {
    static let now = "extract(epoch FROM clock_timestamp())::float8"
    static let leaseColumns = "resource, board, owner, token, acquired_at, renewed_at, expires_at"

    public func tryAcquire(
        resource: String, board: String, owner: String, token: String, ttl: Duration
    )
        async throws(HistoryError) -> LeaseAttempt
    {
        // A holder may release between our failed take and our look at who holds it: then try again.
        for _ in 0..<3 {
            let taken = try await leaseRows(
                """
                INSERT INTO leases AS l (resource, board, owner, token, acquired_at, renewed_at, expires_at)
                SELECT \(resource), \(board), \(owner), \(token), t, t, t + \(ttl.seconds)
                FROM (SELECT \(unescaped: Self.now) AS t) AS clock
                ON CONFLICT (resource) DO UPDATE SET board = EXCLUDED.board, owner = EXCLUDED.owner,
                  token = EXCLUDED.token, renewed_at = EXCLUDED.renewed_at, expires_at = EXCLUDED.expires_at,
                  acquired_at = CASE WHEN l.token = EXCLUDED.token THEN l.acquired_at ELSE EXCLUDED.acquired_at END
                WHERE l.expires_at < EXCLUDED.acquired_at OR l.token = EXCLUDED.token
                RETURNING \(unescaped: Self.leaseColumns)
                """)
            if let lease = taken.first { return .acquired(lease.lease) }
            if let holder = try await leaseRows(
                """
                SELECT \(unescaped: Self.leaseColumns), \(unescaped: Self.now) AS now FROM leases
                WHERE resource = \(resource)
                """
            ).first {
                return .held(by: holder.lease, now: holder.now)
            }
        }
        throw HistoryError(
            database: url.description, message: "the lease on \(resource) changed hands three times in one attempt")
    }

    public func renew(resource: String, token: String, ttl: Duration) async throws(HistoryError) -> LeaseRecord? {
        try await leaseRows(
            """
            UPDATE leases SET renewed_at = \(unescaped: Self.now), expires_at = \(unescaped: Self.now) + \(ttl.seconds)
            WHERE resource = \(resource) AND token = \(token) RETURNING \(unescaped: Self.leaseColumns)
            """
        ).first?.lease
    }

    @discardableResult
    public func release(resource: String, token: String) async throws(HistoryError) -> Bool {
        try await !leaseRows(
            """
            DELETE FROM leases WHERE resource = \(resource) AND token = \(token)
            RETURNING \(unescaped: Self.leaseColumns)
            """
        ).isEmpty
    }

    /// One statement for all of them.
    public func renew(resources: [String], token: String, ttl: Duration) async throws(HistoryError) -> Set<String> {
        let renewed = try await leaseRows(
            """
            UPDATE leases SET renewed_at = \(unescaped: Self.now), expires_at = \(unescaped: Self.now) + \(ttl.seconds)
            WHERE resource = ANY(\(resources)) AND token = \(token) RETURNING \(unescaped: Self.leaseColumns)
            """)
        return Set(resources).subtracting(renewed.map(\.lease.resource))
    }

    /// One statement for all of them.
    public func release(resources: [String], token: String) async throws(HistoryError) {
        _ = try await leaseRows(
            """
            DELETE FROM leases WHERE resource = ANY(\(resources)) AND token = \(token)
            RETURNING \(unescaped: Self.leaseColumns)
            """)
    }

    public func leases() async throws(HistoryError) -> (leases: [LeaseRecord], now: Date) {
        let clock = try await leaseRows(
            """
            SELECT '' AS resource, '' AS board, '' AS owner, '' AS token, 0::float8 AS acquired_at,
              0::float8 AS renewed_at, 0::float8 AS expires_at, \(unescaped: Self.now) AS now
            """)
        let leases = try await leaseRows("SELECT \(unescaped: Self.leaseColumns) FROM leases ORDER BY resource")
        return (leases.map(\.lease), clock.first?.now ?? Date())
    }

    private func leaseRows(_ query: PostgresQuery) async throws(HistoryError) -> [(lease: LeaseRecord, now: Date)] {
        try await perform {
            var leases: [(LeaseRecord, Date)] = []
            for try await row in try await self.client.query(query, logger: self.logger) {
                let row = row.makeRandomAccess()
                let lease = LeaseRecord(
                    resource: try row["resource"].decode(String.self), board: try row["board"].decode(String.self),
                    owner: try row["owner"].decode(String.self), token: try row["token"].decode(String.self),
                    acquiredAt: Date(timeIntervalSince1970: try row["acquired_at"].decode(Double.self)),
                    renewedAt: Date(timeIntervalSince1970: try row["renewed_at"].decode(Double.self)),
                    expiresAt: Date(timeIntervalSince1970: try row["expires_at"].decode(Double.self)))
                let now = row.contains("now") ? Date(timeIntervalSince1970: try row["now"].decode(Double.self)) : Date()
                leases.append((lease, now))
            }
            return leases
        }
    }
}
