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
                return HeldLease(record: record, leasing: self)
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

    static func time(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: false))
    }

    static func seconds(_ value: Double) -> String {
        value >= 100 || value == value.rounded() ? "\(Int(value.rounded())) s" : String(format: "%.1f s", value)
    }
}

/// A lease this process holds, kept alive by a heartbeat task until released.
final class HeldLease: BoardLease {
    let record: LeaseRecord
    private let leasing: DatabaseLeasing
    private let heartbeat: Mutex<Task<Void, Never>?> = Mutex(nil)

    init(record: LeaseRecord, leasing: DatabaseLeasing) {
        self.record = record
        self.leasing = leasing
        let (store, resource, token, ttl, lost) = (
            leasing.store, record.resource, record.token, leasing.ttl, leasing.lost
        )
        let board = record.board
        heartbeat.withLock {
            $0 = Task.detached {
                while !Task.isCancelled {
                    do { try await Task.sleep(for: ttl / 3) } catch { return }
                    do {
                        if try await store.renew(resource: resource, token: token, ttl: ttl) == nil {
                            lost(
                                "board \(board): the lease on \(resource) was lost (it expired and another run took it)"
                            )
                            return
                        }
                    } catch {
                        // The database may come back before the lease expires: keep trying, but say so.
                        lost("board \(board): could not renew the lease on \(resource): \(error)")
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
        do { try await leasing.store.release(resource: record.resource, token: record.token) } catch {
            leasing.lost(
                "board \(record.board): could not release the lease on \(record.resource): \(error) "
                    + "(it expires by itself)")
        }
    }
}
