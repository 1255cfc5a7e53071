import BLECore

/// What one ``SyncWorker/drain()`` did.
public struct SyncProgress: Sendable, Hashable {
    /// Batches sent to the ingest.
    public var attempts = 0
    /// Batches that failed as a whole.
    public var failedAttempts = 0
    /// Readings the ingest confirmed and the queue deleted.
    public var confirmed = 0
    /// Readings refused or failed, counted once per attempt.
    public var failedReadings = 0
    /// Readings moved to the dead letters.
    public var deadLettered = 0

    public init() {}
}

/// The thin shell around ``SyncWorkerCore``: performs its actions on a ``SyncQueue`` and an ``Uploader``, and
/// waits on the injected clock (virtual in the farm, the wall clock on a bench).
public actor SyncWorker {
    /// One step the shell took, for progress lines and crash tests.
    public enum Step: Sendable {
        case uploading(count: Int)
        /// The ingest holds these keys now; `duplicates` of them it held already.
        case confirmed(keys: [String], duplicates: [String])
        case deleted(count: Int)
        case failed(count: Int, deadLettered: Int, error: String)
    }

    public let queue: SyncQueue
    let uploader: any Uploader
    let clock: any RigClock
    private var core: SyncWorkerCore
    /// Actions the core emitted outside ``drain()`` (a reachability change), performed by the next drain.
    private var backlog: [SyncWorkerCore.Action] = []
    public nonisolated let policy: SyncPolicy
    private let observe: @Sendable (Step) -> Void

    public init(
        queue: SyncQueue, uploader: any Uploader, clock: any RigClock, policy: SyncPolicy = SyncPolicy(),
        online: Bool = true, observe: @escaping @Sendable (Step) -> Void = { _ in }
    ) {
        self.queue = queue
        self.uploader = uploader
        self.clock = clock
        self.observe = observe
        self.policy = policy
        core = SyncWorkerCore(policy: policy)
        backlog = core.reachabilityChanged(online: online, now: clock.now)
    }

    public var online: Bool { core.online }

    /// Attempts before a reading is dead-lettered.
    public nonisolated var policyMaxAttempts: Int { policy.maxAttempts }

    /// Reachability as an input: offline, ``drain()`` attempts nothing and counts no retry.
    public func setOnline(_ online: Bool) {
        backlog += core.reachabilityChanged(online: online, now: clock.now)
    }

    /// Uploads until the queue is empty, or returns at once when offline. Failed attempts wait out their backoff
    /// on the clock. Throws only when the queue itself fails (disk full, read-only, corrupt).
    @discardableResult
    public func drain() async throws -> SyncProgress {
        do { return try await performUntilDrained() } catch {
            core.abandon()
            throw error
        }
    }

    private func performUntilDrained() async throws -> SyncProgress {
        var progress = SyncProgress()
        var pending = backlog + core.workQueued(now: clock.now)
        backlog = []
        while true {
            guard !pending.isEmpty else {
                guard core.online, let deadline = core.retryAt else { return progress }
                try await clock.sleep(until: deadline, tolerance: nil)
                pending = core.retryDue(now: clock.now)
                continue
            }
            let action = pending.removeFirst()
            switch action {
            case let .fetch(limit):
                let fetched = try await BlockingWork.run { () throws(SyncQueueError) in try queue.oldest(limit: limit) }
                pending += core.fetched(fetched, now: clock.now)
            case let .upload(items):
                progress.attempts += 1
                observe(.uploading(count: items.count))
                do {
                    let receipt = try await uploader.upload(IngestBatch(readings: items.map(IngestReading.init)))
                    observe(.confirmed(keys: receipt.accepted, duplicates: receipt.duplicates))
                    pending += core.uploaded(receipt, now: clock.now)
                } catch {
                    progress.failedAttempts += 1
                    pending += core.uploadFailed(error.message, now: clock.now)
                }
            case let .delete(ids):
                try await BlockingWork.run { () throws(SyncQueueError) in try queue.delete(ids: ids) }
                progress.confirmed += ids.count
                observe(.deleted(count: ids.count))
            case let .recordFailures(failures, dead):
                let at = clock.now.sinceOrigin.seconds
                try await BlockingWork.run { () throws(SyncQueueError) in
                    try queue.recordFailures(failures.map { ($0.id, $0.error) }, deadLetter: Set(dead), at: at)
                }
                progress.failedReadings += failures.count
                progress.deadLettered += dead.count
                observe(.failed(count: failures.count, deadLettered: dead.count, error: failures.first?.error ?? ""))
            case .wait:
                break  // handled when nothing else is pending
            case .drained:
                return progress
            }
        }
    }
}
