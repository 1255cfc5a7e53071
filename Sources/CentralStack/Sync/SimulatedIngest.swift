import BLECore
import Synchronization

/// A deterministic ingest for the virtual farm: it dedupes by idempotency key like the real server (the same
/// ``IngestLedger``), answers after a modelled round trip on the injected (virtual) clock, and fails when told
/// to: during outages, for keys it is told to refuse, and for a seeded share of requests.
public final class SimulatedIngest: Uploader {
    /// Injected failures.
    public struct Faults: Sendable {
        /// Windows on the clock during which every request fails (the server is down).
        public var outages: [Range<RigInstant>] = []
        /// Keys the ingest always refuses (readings the server cannot accept).
        public var refusedKeys: Set<String> = []
        /// The share of requests that fail as a whole (0…1), drawn from `seed`.
        public var failureRate = 0.0
        public var seed: UInt64 = 1

        public init() {}
    }

    public let clock: any RigClock
    /// The modelled request round trip.
    public let roundTrip: Duration
    private let state: Mutex<(faults: Faults, ledger: IngestLedger, random: SeededRandom)>

    public init(clock: any RigClock, roundTrip: Duration = .milliseconds(120), faults: Faults = Faults()) {
        self.clock = clock
        self.roundTrip = roundTrip
        state = Mutex((faults, IngestLedger(), SeededRandom(seed: faults.seed, stream: "simulated-ingest")))
    }

    /// What it holds; `confirmedAt` is seconds since the clock's origin.
    public var ledger: IngestLedger { state.withLock { $0.ledger } }

    public func setFaults(_ faults: Faults) {
        state.withLock { state in
            state.faults = faults
            state.random = SeededRandom(seed: faults.seed, stream: "simulated-ingest")
        }
    }

    public func upload(_ batch: IngestBatch) async throws(UploadError) -> UploadReceipt {
        do { try await clock.sleep(for: roundTrip) } catch { throw UploadError("cancelled while uploading") }
        let now = clock.now
        return try state.withLock { state throws(UploadError) -> UploadReceipt in
            state.ledger.requests += 1
            if state.faults.outages.contains(where: { $0.contains(now) }) {
                state.ledger.failedRequests += 1
                throw UploadError("ingest unavailable (HTTP 503, injected outage)")
            }
            if state.faults.failureRate > 0, state.random.nextUnit() < state.faults.failureRate {
                state.ledger.failedRequests += 1
                throw UploadError("ingest failed (HTTP 500, injected)")
            }
            return state.ledger.accept(batch, refused: state.faults.refusedKeys, at: now.sinceOrigin.seconds)
        }
    }
}
