import BLECore
import Foundation
import Orchestrator
import Synchronization

/// ``Orchestrator/BoardLeasing`` on a history database. A lease lasts ``ttl`` from its last renewal; while held,
/// a heartbeat renews it every third of that, so a holder that is SIGKILLed (or whose host dies) loses it within
/// one ``ttl``, after which another run takes it over. Waiting for a held board polls the database and says who
/// holds it; after ``timeout`` it gives up with a message saying who, until when, and what to do.
public struct DatabaseLeasing: BoardLeasing {
    public let store: any LeaseStore
    public let owner: LeaseOwner
    /// How long a lease lasts without a heartbeat.
    public let ttl: Duration
    /// How long to wait for a board another run holds (`--lease-timeout`).
    public let timeout: Duration
    /// Called when a held lease is lost (its heartbeat found another holder, or could not reach the database).
    let lost: @Sendable (String) -> Void

    public static let defaultTTL: Duration = .seconds(30)
    public static let defaultTimeout: Duration = .seconds(600)

    public init(
        store: any LeaseStore, owner: LeaseOwner, ttl: Duration = Self.defaultTTL,
        timeout: Duration = Self.defaultTimeout,
        lost: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.store = store
        self.owner = owner
        self.ttl = ttl
        self.timeout = timeout
        self.lost = lost
    }

    /// How often a waiting run looks again: a third of the lease's life, at most a second.
    var pollInterval: Duration { min(ttl / 3, .seconds(1)) }

    public func acquire(
        _ key: BoardLeaseKey, waiting: @escaping @Sendable (String) -> Void
    ) async throws(BoardLeaseError) -> any BoardLease {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        var lastHolder: String?
        var holder: LeaseRecord?
        while true {
            let attempt: LeaseAttempt
            do {
                attempt = try await store.tryAcquire(
                    resource: key.resource, board: key.board, owner: owner.name, token: owner.token, ttl: ttl)
            } catch {
                throw BoardLeaseError("board \(key.board) (\(key.resource)): cannot take its lease: \(error)")
            }
            switch attempt {
            case .acquired(let record):
                return HeldLease(records: [record], leasing: self)
            case .held(let record, let now):
                holder = record
                if lastHolder != record.token {
                    lastHolder = record.token
                    waiting(
                        "waiting for \(key.resource): held by \(record.owner) since \(Self.time(record.acquiredAt)), "
                            + "lease expires in \(Self.seconds(record.expiresAt.timeIntervalSince(now))) "
                            + "unless renewed; "
                            + "giving up after \(Self.seconds(timeout.seconds)) (--lease-timeout)")
                }
            }
            let remaining = clock.now.duration(to: deadline)
            guard remaining > .zero, !Task.isCancelled else { break }
            do { try await Task.sleep(for: min(pollInterval, remaining)) } catch { break }
        }
        let who = holder.map { "held by \($0.owner) since \(Self.time($0.acquiredAt))" } ?? "held by another run"
        throw BoardLeaseError(
            Task.isCancelled
                ? "board \(key.board) (\(key.resource)): stopped while waiting for its lease (\(who))"
                : "board \(key.board) (\(key.resource)) is still \(who) after waiting "
                    + "\(Self.seconds(timeout.seconds)) (--lease-timeout): wait for that run to finish, or raise "
                    + "--lease-timeout; `blerig leases` lists who holds what")
    }

    /// In one step of the store (one transaction on SQLite), under one heartbeat.
    public func acquireAvailable(
        _ keys: [BoardLeaseKey]
    ) async throws(BoardLeaseError) -> (
        count: Int, lease: any BoardLease
    )? {
        let prefix: LeasePrefix
        do {
            prefix = try await store.tryAcquire(
                keys.map { LeaseRequest(resource: $0.resource, board: $0.board) }, owner: owner.name,
                token: owner.token, ttl: ttl)
        } catch {
            throw BoardLeaseError("\(Self.boards(keys.map(\.board))): cannot take their leases: \(error)")
        }
        guard !prefix.acquired.isEmpty else { return nil }
        return (prefix.acquired.count, HeldLease(records: prefix.acquired, leasing: self))
    }

    /// `board esp-01`, or `boards esp-01, esp-02 and 3 more`.
    static func boards(_ ids: [String]) -> String {
        guard ids.count > 1 else { return "board \(ids.first ?? "")" }
        let shown = ids.prefix(2).joined(separator: ", ")
        return "boards \(shown)" + (ids.count > 2 ? " and \(ids.count - 2) more" : "")
    }

    static func time(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: false))
    }

    static func seconds(_ value: Double) -> String {
        value >= 100 || value == value.rounded() ? "\(Int(value.rounded())) s" : String(format: "%.1f s", value)
    }
}

/// Leases this process holds, taken together and kept alive by one heartbeat task (each renewal one step of the
/// store for all of them) until released together. A lease found lost is said so and left out of later renewals.
final class HeldLease: BoardLease {
    let records: [LeaseRecord]
    private let leasing: DatabaseLeasing
    /// The resources still held: a lost one leaves. Shared with the heartbeat task, which must not hold `self`.
    private let held: Held
    private let heartbeat: Mutex<Task<Void, Never>?> = Mutex(nil)

    init(records: [LeaseRecord], leasing: DatabaseLeasing) {
        self.records = records
        self.leasing = leasing
        held = Held(records.map(\.resource))
        let boards = Dictionary(records.map { ($0.resource, $0.board) }, uniquingKeysWith: { first, _ in first })
        let (store, token, ttl, lost) = (leasing.store, records.first?.token ?? "", leasing.ttl, leasing.lost)
        heartbeat.withLock {
            $0 = Task.detached { [held] in
                while !Task.isCancelled {
                    do { try await Task.sleep(for: ttl / 3) } catch { return }
                    let resources = held.resources.withLock { $0 }
                    guard !resources.isEmpty else { return }
                    do {
                        let gone = try await store.renew(resources: resources, token: token, ttl: ttl)
                        guard !gone.isEmpty else { continue }
                        held.resources.withLock { $0.removeAll { gone.contains($0) } }
                        for resource in resources where gone.contains(resource) {
                            lost(
                                "board \(boards[resource] ?? ""): the lease on \(resource) was lost (it expired and "
                                    + "another run took it)")
                        }
                    } catch {
                        // The database may come back before the leases expire: keep trying, but say so.
                        lost(
                            "\(DatabaseLeasing.boards(resources.map { boards[$0] ?? $0 })): could not renew "
                                + "\(resources.count == 1 ? "the lease on \(resources[0])" : "their leases"): \(error)")
                    }
                }
            }
        }
    }

    func release() async {
        let task = heartbeat.withLock { task in
            defer { task = nil }
            return task
        }
        guard let task else { return }
        task.cancel()
        await task.value
        let resources = held.resources.withLock { $0 }
        guard !resources.isEmpty, let token = records.first?.token else { return }
        do { try await leasing.store.release(resources: resources, token: token) } catch {
            let boards = records.filter { resources.contains($0.resource) }.map(\.board)
            leasing.lost(
                "\(DatabaseLeasing.boards(boards)): could not release "
                    + "\(resources.count == 1 ? "the lease on \(resources[0])" : "their \(resources.count) leases"): "
                    + "\(error) (\(resources.count == 1 ? "it expires" : "they expire") by itself)")
        }
    }

    final class Held: Sendable {
        let resources: Mutex<[String]>
        init(_ resources: [String]) { self.resources = Mutex(resources) }
    }
}
