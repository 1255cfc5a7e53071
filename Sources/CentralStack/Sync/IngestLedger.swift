/// What an ingest holds: one payload per idempotency key, with the time it first confirmed it. Shared by the
/// HTTP ingest server and the virtual farm's ``SimulatedIngest``, so both dedupe the same way.
public struct IngestLedger: Sendable {
    public struct Entry: Sendable, Hashable {
        public var reading: IngestReading
        /// When the ingest first confirmed the key, in seconds on its clock.
        public var confirmedAt: Double
    }

    /// Held readings by key.
    public private(set) var held: [String: Entry] = [:]
    /// Deliveries of a key the ingest had already confirmed (deduped, answered as accepted).
    public private(set) var redeliveries = 0
    /// Deliveries of a held key with a different payload (refused).
    public private(set) var conflicts = 0
    /// Batches received, and of those, failed as a whole.
    public var requests = 0
    public var failedRequests = 0

    public init() {}

    /// Stores the new readings of `batch`, refusing `refused` keys and payloads that contradict a held one.
    public mutating func accept(_ batch: IngestBatch, refused: Set<String> = [], at now: Double) -> UploadReceipt {
        var receipt = UploadReceipt(accepted: [])
        for reading in batch.readings {
            if refused.contains(reading.key) {
                receipt.rejected.append(.init(key: reading.key, reason: "refused by the ingest (injected)"))
            } else if reading.key != SyncQueue.key(board: reading.board, seq: reading.seq)
                || Hex.decode(reading.payload) == nil
            {
                receipt.rejected.append(.init(key: reading.key, reason: "malformed reading: key or payload"))
            } else if let entry = held[reading.key] {
                guard entry.reading == reading else {
                    conflicts += 1
                    receipt.rejected.append(.init(key: reading.key, reason: "a different payload is held for this key"))
                    continue
                }
                redeliveries += 1
                receipt.accepted.append(reading.key)
                receipt.duplicates.append(reading.key)
            } else {
                held[reading.key] = Entry(reading: reading, confirmedAt: now)
                receipt.accepted.append(reading.key)
            }
        }
        return receipt
    }

    /// The counts the ingest's `GET /counts` answers with.
    public var counts: IngestCounts {
        IngestCounts(
            held: held.count, redeliveries: redeliveries, conflicts: conflicts, requests: requests,
            failedRequests: failedRequests)
    }
}

/// The ingest's counters, the JSON of `GET /counts`.
public struct IngestCounts: Codable, Sendable, Hashable {
    public var held: Int
    public var redeliveries: Int
    public var conflicts: Int
    public var requests: Int
    public var failedRequests: Int

    public init(held: Int, redeliveries: Int, conflicts: Int, requests: Int, failedRequests: Int) {
        self.held = held
        self.redeliveries = redeliveries
        self.conflicts = conflicts
        self.requests = requests
        self.failedRequests = failedRequests
    }
}
