import Foundation

/// A board's lease as the database holds it.
public struct LeaseRecord: Sendable, Hashable, Codable {
    /// What is leased (``Orchestrator/BoardLeaseKey/resource``).
    public var resource: String
    /// The board's id in the holder's rig.
    public var board: String
    /// Who holds it, as people read it: `ci-job 4711 (host-a:2231)`, `host-a:2231`.
    public var owner: String
    /// The holder's secret: only the holder renews or releases. Unique per process.
    public var token: String
    public var acquiredAt: Date
    public var renewedAt: Date
    /// After this the lease is free to take over, whether or not its holder lives.
    public var expiresAt: Date

    public init(
        resource: String, board: String, owner: String, token: String, acquiredAt: Date, renewedAt: Date,
        expiresAt: Date
    ) {
        self.resource = resource
        self.board = board
        self.owner = owner
        self.token = token
        self.acquiredAt = acquiredAt
        self.renewedAt = renewedAt
        self.expiresAt = expiresAt
    }
}

/// The answer to an attempt to take a lease.
public enum LeaseAttempt: Sendable, Hashable {
    /// Taken (new, taken over after it expired, or already ours).
    case acquired(LeaseRecord)
    /// Someone else holds it and it has not expired.
    case held(by: LeaseRecord, now: Date)
}

/// The leases table of a history database. Every operation is atomic across processes and hosts; times come
/// from the database's clock where it has one (PostgreSQL), so hosts with skewed clocks agree on expiry.
public protocol LeaseStore: Sendable {
    /// Takes the lease on `resource` unless another token holds it unexpired: in one atomic step.
    func tryAcquire(
        resource: String, board: String, owner: String, token: String, ttl: Duration
    )
        async throws(HistoryError) -> LeaseAttempt

    /// Extends the lease by `ttl` from now if `token` still holds it; nil when it does not (it expired and was
    /// taken over, or was removed).
    func renew(resource: String, token: String, ttl: Duration) async throws(HistoryError) -> LeaseRecord?

    /// Removes the lease if `token` still holds it; false when it did not.
    @discardableResult
    func release(resource: String, token: String) async throws(HistoryError) -> Bool

    /// Every lease in the table, expired ones included, by resource; with the database's clock now.
    func leases() async throws(HistoryError) -> (leases: [LeaseRecord], now: Date)

    /// Takes the leases on `requests` in their order until one is held by another token: those it took (a prefix
    /// of `requests`), and that holder. What `tryAcquire(resource:…)` would do one request at a time, without
    /// ever waiting; a store may do it in one round trip.
    func tryAcquire(
        _ requests: [LeaseRequest], owner: String, token: String, ttl: Duration
    )
        async throws(HistoryError) -> LeasePrefix

    /// Extends by `ttl` every lease of `resources` that `token` still holds; returns those it no longer holds.
    func renew(resources: [String], token: String, ttl: Duration) async throws(HistoryError) -> Set<String>

    /// Removes every lease of `resources` that `token` still holds.
    func release(resources: [String], token: String) async throws(HistoryError)
}

/// A lease to take: on what, for which board of the rig.
public struct LeaseRequest: Sendable, Hashable {
    public var resource: String
    public var board: String

    public init(resource: String, board: String) {
        self.resource = resource
        self.board = board
    }
}

/// What taking several leases in order got: the leases taken, then the lease that stopped it, if one did.
public struct LeasePrefix: Sendable, Hashable {
    public var acquired: [LeaseRecord]
    /// The first lease another token holds unexpired, with the database's clock when it was seen.
    public var stoppedBy: LeaseRecord?
    public var now: Date?

    public init(acquired: [LeaseRecord], stoppedBy: LeaseRecord? = nil, now: Date? = nil) {
        self.acquired = acquired
        self.stoppedBy = stoppedBy
        self.now = now
    }
}

extension LeaseStore {
    /// One request at a time: each a step of its own.
    public func tryAcquire(
        _ requests: [LeaseRequest], owner: String, token: String, ttl: Duration
    )
        async throws(HistoryError) -> LeasePrefix
    {
        var prefix = LeasePrefix(acquired: [])
        for request in requests {
            switch try await tryAcquire(
                resource: request.resource, board: request.board, owner: owner, token: token, ttl: ttl)
            {
            case .acquired(let record): prefix.acquired.append(record)
            case .held(let holder, let now):
                prefix.stoppedBy = holder
                prefix.now = now
                return prefix
            }
        }
        return prefix
    }

    /// One resource at a time.
    public func renew(resources: [String], token: String, ttl: Duration) async throws(HistoryError) -> Set<String> {
        var lost: Set<String> = []
        for resource in resources where try await renew(resource: resource, token: token, ttl: ttl) == nil {
            lost.insert(resource)
        }
        return lost
    }

    /// One resource at a time.
    public func release(resources: [String], token: String) async throws(HistoryError) {
        for resource in resources { try await release(resource: resource, token: token) }
    }
}
