import BLECore

/// The sync worker's policy: the case study's numbers by default.
public struct SyncPolicy: Sendable, Hashable {
    /// Readings per upload, oldest first.
    public var batchSize = 50
    /// Attempts before a reading is dead-lettered.
    public var maxAttempts = 5
    /// The wait after the first failed attempt; it doubles with every further consecutive failure, so the fifth
    /// attempt comes about half an hour after the first (60 + 120 + 240 + 480 + 960 s): an ingest outage shorter
    /// than that costs no reading its place in the queue.
    public var backoff: Duration = .seconds(60)
    public var maxBackoff: Duration = .seconds(3600)

    public init() {}
}

/// The sync worker in abstract terms (sans I/O): events in, actions out. The shell (``SyncWorker``) performs
/// the actions — queue reads and writes, uploads, waits — and feeds their results back.
///
/// Rules: uploads go oldest first in batches of ``SyncPolicy/batchSize``; only keys the ingest confirmed are
/// deleted; every failed attempt counts a retry and keeps the error; a reading whose attempts reach
/// ``SyncPolicy/maxAttempts`` is dead-lettered (kept and reported, never dropped). Offline, nothing is attempted
/// and no retry is counted. One batch is in flight at a time.
public struct SyncWorkerCore: Sendable {
    public enum Action: Sendable, Hashable {
        /// Load the oldest `limit` pending readings and report them with ``fetched(_:now:)``.
        case fetch(limit: Int)
        /// Upload these readings and report with ``uploaded(_:now:)`` or ``uploadFailed(_:now:)``.
        case upload([QueuedReading])
        /// Delete the confirmed readings.
        case delete(ids: [Int64])
        /// Count a failed attempt for each; move those in `deadLetter` to the dead letters.
        case recordFailures([Failure], deadLetter: [Int64])
        /// Call ``retryDue(now:)`` at `deadline`.
        case wait(until: RigInstant)
        /// The queue is empty (as of the last fetch).
        case drained
    }

    public struct Failure: Sendable, Hashable {
        public var id: Int64
        public var error: String
        public init(id: Int64, error: String) {
            self.id = id
            self.error = error
        }
    }

    public let policy: SyncPolicy
    public private(set) var online = false
    /// A fetch or an upload is outstanding.
    public private(set) var busy = false
    public private(set) var retryAt: RigInstant?
    private var inFlight: [QueuedReading] = []
    private var consecutiveFailures = 0

    public init(policy: SyncPolicy = SyncPolicy()) { self.policy = policy }

    /// The phone's connectivity changed.
    public mutating func reachabilityChanged(online: Bool, now: RigInstant) -> [Action] {
        self.online = online
        return online ? next(now: now) : []
    }

    /// New readings were queued.
    public mutating func workQueued(now: RigInstant) -> [Action] { next(now: now) }

    /// A ``Action/wait(until:)`` deadline passed.
    public mutating func retryDue(now: RigInstant) -> [Action] {
        if let retryAt, now >= retryAt { self.retryAt = nil }
        return next(now: now)
    }

    public mutating func fetched(_ items: [QueuedReading], now: RigInstant) -> [Action] {
        busy = false
        guard !items.isEmpty else { return [.drained] }
        guard online, retryAt == nil else { return [] }
        busy = true
        inFlight = Array(items.prefix(policy.batchSize))
        return [.upload(inFlight)]
    }

    /// The ingest answered: delete what it confirmed, count a failure for what it refused (or left out).
    public mutating func uploaded(_ receipt: UploadReceipt, now: RigInstant) -> [Action] {
        busy = false
        let batch = inFlight
        inFlight = []
        let accepted = Set(receipt.accepted)
        let reasons = Dictionary(receipt.rejected.map { ($0.key, $0.reason) }, uniquingKeysWith: { a, _ in a })
        let confirmed = batch.filter { accepted.contains($0.key) }.map(\.id)
        let refused = batch.filter { !accepted.contains($0.key) }.map { item in
            (item, reasons[item.key] ?? "the ingest's answer did not mention \(item.key)")
        }
        var actions: [Action] = []
        if !confirmed.isEmpty { actions.append(.delete(ids: confirmed)) }
        if refused.isEmpty {
            consecutiveFailures = 0
        } else {
            actions.append(failures(refused))
            actions.append(backOff(now: now))
        }
        return actions + next(now: now)
    }

    /// The whole batch failed (no answer, or an error status): nothing is confirmed.
    public mutating func uploadFailed(_ error: String, now: RigInstant) -> [Action] {
        busy = false
        let batch = inFlight
        inFlight = []
        return [failures(batch.map { ($0, error) }), backOff(now: now)] + next(now: now)
    }

    /// The shell could not perform an action (the queue failed): forget what was in flight, so the next event
    /// starts over from the queue, which still holds every reading not confirmed and deleted.
    public mutating func abandon() {
        busy = false
        inFlight = []
    }

    private func failures(_ items: [(QueuedReading, String)]) -> Action {
        let dead = items.filter { $0.0.retryCount + 1 >= policy.maxAttempts }.map(\.0.id)
        return .recordFailures(items.map { Failure(id: $0.0.id, error: $0.1) }, deadLetter: dead)
    }

    private mutating func backOff(now: RigInstant) -> Action {
        consecutiveFailures += 1
        var delay = policy.backoff
        for _ in 1..<consecutiveFailures where delay < policy.maxBackoff { delay = delay * 2 }
        delay = min(delay, policy.maxBackoff)
        let deadline = now.advanced(by: delay)
        retryAt = deadline
        return .wait(until: deadline)
    }

    private mutating func next(now: RigInstant) -> [Action] {
        guard online, !busy else { return [] }
        if let retryAt, now < retryAt { return [] }
        retryAt = nil
        busy = true
        return [.fetch(limit: policy.batchSize)]
    }
}
