import BLECore
import CentralStack
import DeviceProfiles
import Reports
import Synchronization

/// What the `sync` suite saw of one board, as it went: each reading's seq when the central queued it and when
/// the ingest confirmed it, the gaps the flash ring's overflow left, the board's `dropped` counter, and every
/// upload attempt. The final accounting is a function of this book and of what the ingest and the queue hold.
final class SyncBook: Sendable {
    struct State {
        /// The first seq the suite is responsible for: the board's oldest record at the first STATUS.
        var firstSeq: UInt32?
        /// The seq after the last one the central read.
        var nextExpected: UInt32?
        var newestSeen: UInt32 = 0
        /// The board's `dropped` counter at the first STATUS and now.
        var droppedAtStart: UInt32?
        var droppedNow: UInt32 = 0
        /// Seqs the ring overwrote before the central read them (the gaps between one READ and the next).
        var ringGaps: [ClosedRange<UInt32>] = []
        var queuedAt: [UInt32: RigInstant] = [:]
        /// Each reading's sample time as the board stamped it (unix seconds).
        var sampledAt: [UInt32: UInt32] = [:]
        /// When the central set the board's clock (unix seconds): readings stamped earlier ran on the board's own
        /// unset clock and have no latency.
        var clockSetAt: UInt32?
        var confirmedAt: [UInt32: RigInstant] = [:]
        /// Keys the ingest said it already held when the central uploaded them.
        var duplicateReceipts = 0
        var uploadAttempts = 0
        /// Seqs the board had been told to free (ACK) while they were neither in the queue nor at the ingest.
        var acknowledgedBeforeCommit: [UInt32] = []
    }

    let clock: any RigClock
    /// The Unix time at which ``clock`` read zero: the bench time a confirmation is compared with a sample time in.
    let unixTimeAtOrigin: Duration
    let serial: Mutex<String?> = Mutex(nil)
    private let state = Mutex(State())

    init(clock: any RigClock, unixTimeAtOrigin: Duration = .zero) {
        self.clock = clock
        self.unixTimeAtOrigin = unixTimeAtOrigin
    }

    func clockSet(at unix: UInt32) { state.withLock { $0.clockSetAt = unix } }

    var snapshot: State { state.withLock { $0 } }

    /// A STATUS before a pull: records the baseline, and a gap when the oldest record is newer than expected.
    func sawStatus(_ status: EspPoint.LogStatus) {
        state.withLock { state in
            if state.firstSeq == nil {
                state.firstSeq = status.oldest
                state.nextExpected = status.oldest
                state.droppedAtStart = status.dropped
            }
            if let expected = state.nextExpected, status.oldest > expected {
                state.ringGaps.append(expected...(status.oldest - 1))
                state.nextExpected = status.oldest
            }
            state.droppedNow = status.dropped
            state.newestSeen = max(state.newestSeen, status.newest)
        }
    }

    func note(_ step: LogPuller.Step) {
        let now = clock.now
        state.withLock { state in
            if case let .read(readings) = step {
                for reading in readings { state.sampledAt[reading.sequence] = reading.unixTime }
            }
            guard case let .committed(sequences) = step else { return }
            for seq in sequences where state.queuedAt[seq] == nil { state.queuedAt[seq] = now }
            if let last = sequences.last {
                state.nextExpected = max(state.nextExpected ?? 0, last &+ 1)
                state.newestSeen = max(state.newestSeen, last)
            }
        }
    }

    func note(_ step: SyncWorker.Step) {
        let now = clock.now
        state.withLock { state in
            switch step {
            case .uploading: state.uploadAttempts += 1
            case let .confirmed(keys, duplicates):
                state.duplicateReceipts += duplicates.count
                for key in keys {
                    guard let seq = Self.sequence(ofKey: key) else { continue }
                    if state.confirmedAt[seq] == nil { state.confirmedAt[seq] = now }
                }
            default: break
            }
        }
    }

    func acknowledgedBeforeCommit(_ seqs: [UInt32]) {
        state.withLock { $0.acknowledgedBeforeCommit += seqs }
    }

    /// `12` of `SN-1/12`.
    static func sequence(ofKey key: String) -> UInt32? {
        key.split(separator: "/").last.flatMap { UInt32($0) }
    }

    /// The seqs the ring overwrote, all gaps together.
    var ringLost: Set<UInt32> {
        snapshot.ringGaps.reduce(into: Set<UInt32>()) { $0.formUnion($1) }
    }

    /// `sync.latency_s`: sampled by the board (the reading's timestamp) → confirmed by the ingest, p50/p95/max and
    /// count, in seconds; only readings stamped after the central set the board's clock.
    func latencyMeasurements(definition: String) -> [MeasuredValue] {
        let state = snapshot
        let origin = unixTimeAtOrigin.seconds
        let inQueueOrder = state.confirmedAt.sorted { $0.key < $1.key }.compactMap { seq, confirmed -> Double? in
            guard let sampled = state.sampledAt[seq], let set = state.clockSetAt, sampled >= set else { return nil }
            return origin + confirmed.sinceOrigin.seconds - Double(sampled)
        }
        CheckRecorder.record("sync.latency_s", unit: .seconds, values: inQueueOrder)
        let latencies = inQueueOrder.sorted()
        func at(_ p: Double) -> Double {
            latencies[min(latencies.count - 1, Int((p / 100 * Double(latencies.count)).rounded(.up)) - 1)]
        }
        guard !latencies.isEmpty else {
            return [
                MeasuredValue(
                    metric: "sync.latency_s", statistic: .count, value: 0, unit: .count, definition: definition)
            ]
        }
        return [
            MeasuredValue(
                metric: "sync.latency_s", statistic: .p50, value: at(50), unit: .seconds, definition: definition),
            MeasuredValue(
                metric: "sync.latency_s", statistic: .p95, value: at(95), unit: .seconds, definition: definition),
            MeasuredValue(
                metric: "sync.latency_s", statistic: .max, value: latencies.last!, unit: .seconds,
                definition: definition),
            MeasuredValue(
                metric: "sync.latency_s", statistic: .count, value: Double(latencies.count), unit: .count,
                definition: definition),
        ]
    }
}
