import BLECore
import CentralStack
import DeviceProfiles
import Reports
import Synchronization

/// One `sync` suite run on one board: the phases of ``SyncSuite`` as checks, sharing a queue, a worker and a
/// ``SyncBook``.
final class SyncRun: Sendable {
    let suite: SyncSuite
    let board: BoardUnderTest
    /// The app's central every pull goes through.
    let app: AppCentral
    let queue: SyncQueue
    /// The ingest itself (for what it holds), and the simulated one when there is one (for injecting faults).
    let ingest: any Uploader
    let simulated: SimulatedIngest?
    let worker: SyncWorker
    let book: SyncBook
    private let refused = Mutex<Set<String>>([])

    static let definitions = (
        lost: "readings in the board's seq range that are neither at the ingest, nor dead letters, nor still queued,"
            + " nor overwritten by the board's ring before the central read them: what the central lost",
        duplicates: "uploads of a reading the ingest already held (it dedupes them by board serial + seq)",
        latency: "reading sampled by the board (its timestamp, on the clock the central set at the first pull) → "
            + "confirmed by the ingest, bench time",
        dead: "readings moved to the dead letters after 5 failed attempts (kept and reported, never dropped)",
        ring: "records the board's flash ring overwrote before the central read them: its dropped counter, which"
            + " must equal the gap in seqs the central saw"
    )

    init(
        suite: SyncSuite, board: BoardUnderTest, app: AppCentral, queue: SyncQueue, ingest: any Uploader, simulated: SimulatedIngest?,
        uploader: any Uploader
    ) {
        self.suite = suite
        self.board = board
        self.app = app
        self.queue = queue
        self.ingest = ingest
        self.simulated = simulated
        let book = SyncBook(clock: board.clock, unixTimeAtOrigin: board.unixTimeAtOrigin)
        self.book = book
        worker = SyncWorker(
            queue: queue, uploader: uploader, clock: board.clock, online: false, observe: { book.note($0) })
    }

    var serial: String { book.serial.withLock { $0 } ?? board.id }

    func perform() async {
        let name = SyncSuite.name
        await board.check(name, SyncSuite.Check.offline.rawValue) { try await self.offlinePhase() }
        await board.check(name, SyncSuite.Check.online.rawValue) { try await self.onlinePhase() }
        if simulated != nil, suite.refusedReadings > 0 {
            await board.check(name, SyncSuite.Check.deadLetters.rawValue) { try self.deadLetters() }
        } else {
            board.recorder.skip(
                name, SyncSuite.Check.deadLetters.rawValue,
                reason: simulated == nil
                    ? "a real ingest cannot be told to refuse readings" : "refused_readings is 0")
        }
        await board.check(name, SyncSuite.Check.ringOverflow.rawValue) { try await self.awayPhase() }
        await board.check(name, SyncSuite.Check.accounting.rawValue) { try await self.accounting() }
        await restoreInterval()
    }

    // MARK: Pulling

    /// Connects, authenticates and moves the board's log into the queue (STATUS, READ, commit, ACK).
    @discardableResult
    func pull(first: Bool = false) async throws -> PullReport {
        let (clock, book, origin) = (board.clock, book, board.unixTimeAtOrigin)
        return try await app.pullLog(
            into: queue, serial: { self.serial }, now: { clock.now.sinceOrigin.seconds }, puller: suite.puller,
            observe: { step in
                book.note(step)
                if case let .acknowledged(upTo) = step { self.verifyQueued(upTo: upTo) }
            },
            prepare: { client in
                if first {
                    let serial = try await client.identity().serial
                    book.serial.withLock { $0 = serial }
                    // The app keeps the board's clock: readings from now on carry the bench's time.
                    let unix = UInt32(truncatingIfNeeded: Int64((origin + clock.now.sinceOrigin).seconds))
                    try await client.setTime(unix: unix)
                    book.clockSet(at: unix)
                    try await client.send(.setInterval(seconds: self.suite.sampleInterval))
                }
                book.sawStatus(try await client.logStatus())
            })
    }

    /// Right after an ACK: every reading up to `upTo` in the suite's range that the ring did not overwrite must
    /// be durably queued (read through the queue file), dead-lettered, or confirmed by the ingest already. One
    /// that is not was acknowledged before it was committed: a crash then would lose it.
    func verifyQueued(upTo: UInt32) {
        let state = book.snapshot
        guard let first = state.firstSeq, first <= upTo else { return }
        let ring = book.ringLost
        let serial = serial
        let missing = (first...upTo).filter { seq in
            !ring.contains(seq) && state.confirmedAt[seq] == nil
                && !((try? queue.holds(board: serial, seq: seq)) ?? false)
        }
        if !missing.isEmpty { book.acknowledgedBeforeCommit(missing) }
    }

    /// Sets the board back to the contract's sample interval (the profile's default), as the suite found it.
    private func restoreInterval() async {
        let interval = EspPoint.defaultSampleInterval
        do {
            try await app.perform("setting the sample interval back") { session in
                try await EspPointClient(session: session).send(.setInterval(seconds: interval))
            }
        } catch {
            board.recorder.log(.warning, "central", "could not set the sample interval back to \(interval) s: \(error)")
        }
    }

    /// The seqs of this board the ingest holds.
    func heldSequences() async throws -> Set<UInt32> {
        let serial = serial
        let readings: [IngestReading]
        if let simulated {
            readings = simulated.ledger.held.values.map(\.reading)
        } else if let http = ingest as? HTTPUploader {
            readings = try await http.heldReadings()
        } else {
            readings = []
        }
        return Set(readings.filter { $0.board == serial }.map(\.seq))
    }

    // MARK: Phases

    /// The phone is offline: pulls every `pull_interval_h`, and the worker attempts nothing.
    func offlinePhase() async throws -> [MeasuredValue] {
        await worker.setOnline(false)
        let clock = board.clock
        let start = clock.now
        try await pull(first: true)
        var next = start.advanced(by: suite.pullEvery)
        while next <= start.advanced(by: suite.offline) {
            try await clock.sleep(until: next, tolerance: nil)
            try await pull()
            try await worker.drain()
            next = next.advanced(by: suite.pullEvery)
        }
        let state = book.snapshot
        let requests = simulated?.ledger.requests ?? 0
        let pending = try queue.pendingCount()
        let measurements = [
            MeasuredValue(
                metric: "sync.queued_offline", statistic: .value, value: Double(state.queuedAt.count), unit: .count,
                definition: "readings pulled from the board and queued while the phone was offline"),
            MeasuredValue(
                metric: "sync.offline_s", statistic: .value, value: start.duration(to: clock.now).seconds,
                unit: .seconds, definition: "time the phone was offline (reachability off), bench time"),
        ]
        if state.uploadAttempts > 0 || requests > 0 {
            throw MeasuredFailure(
                failure: CheckFailure(
                    "\(board.place): \(max(state.uploadAttempts, requests)) upload attempt(s) while offline; expected none"
                ),
                measurements: measurements)
        }
        if pending != state.queuedAt.count || pending == 0 {
            throw MeasuredFailure(
                failure: CheckFailure(
                    "\(board.place): the queue holds \(pending) readings after pulling \(state.queuedAt.count) while offline"
                ),
                measurements: measurements)
        }
        return measurements
    }

    /// Back online, through an ingest outage, failing requests and refused readings.
    func onlinePhase() async throws -> [MeasuredValue] {
        if let simulated {
            var faults = SimulatedIngest.Faults()
            let now = board.clock.now
            faults.outages = [now..<now.advanced(by: suite.outage)]
            faults.failureRate = suite.failureRate
            faults.seed = board.seed
            let pending = try queue.oldest(limit: 1_000_000)
            let count = suite.refusedReadings
            let chosen = (1...max(1, count)).prefix(count).compactMap { index -> String? in
                let position = pending.count * index / (count + 1)
                return pending.indices.contains(position) ? pending[position].key : nil
            }
            faults.refusedKeys = Set(chosen)
            refused.withLock { $0 = faults.refusedKeys }
            simulated.setFaults(faults)
        }
        let queued = Set(book.snapshot.queuedAt.keys)
        await worker.setOnline(true)
        let progress = try await worker.drain()
        let pending = try queue.pendingCount()
        let held = try await heldSequences()
        let refusedSeqs = Set(refused.withLock { $0 }.compactMap(SyncBook.sequence(ofKey:)))
        let missing = queued.subtracting(held).subtracting(refusedSeqs)
        let measurements = [
            MeasuredValue(
                metric: "sync.upload_attempts", statistic: .value, value: Double(progress.attempts), unit: .count,
                definition: "batches of at most 50 sent to the ingest to upload the offline backlog"),
            MeasuredValue(
                metric: "sync.failed_attempts", statistic: .value, value: Double(progress.failedAttempts),
                unit: .count, definition: "of those, batches that failed as a whole (outage, injected errors)"),
        ]
        if pending > 0 || !missing.isEmpty {
            throw MeasuredFailure(
                failure: CheckFailure(
                    "\(board.place): after the upload \(pending) reading(s) are still queued and \(missing.count) "
                        + "queued reading(s) are not at the ingest (first: \(missing.sorted().prefix(5)))"),
                measurements: measurements)
        }
        return measurements
    }

    /// The refused readings are dead letters, with their attempts and error, never gone.
    func deadLetters() throws -> [MeasuredValue] {
        let dead = try queue.deadLetters()
        let expected = refused.withLock { $0 }
        let keys = Set(dead.compactMap { letter in letter.seq.map { SyncQueue.key(board: letter.board, seq: $0) } })
        let measurements = [
            MeasuredValue(
                metric: "sync.dead_lettered", statistic: .value, value: Double(dead.count), unit: .count,
                definition: Self.definitions.dead)
        ]
        let attempts = worker.policyMaxAttempts
        guard keys == expected,
            dead.allSatisfy({ $0.retryCount == attempts && $0.payload.count == EspPoint.Reading.size })
        else {
            throw MeasuredFailure(
                failure: CheckFailure(
                    "\(board.place): \(dead.count) dead letter(s) \(keys.sorted().prefix(5)) (retry counts "
                        + "\(dead.map(\.retryCount).prefix(5)), last error: \(dead.first?.lastError ?? "-")); expected "
                        + "exactly the refused readings \(expected.sorted()), each after \(attempts) attempts"),
                measurements: measurements)
        }
        for letter in dead {
            board.recorder.log(
                .warning, "sync",
                "dead letter \(letter.board)/\(letter.seq.map(String.init) ?? "?") after \(letter.retryCount) attempts: \(letter.lastError)"
            )
        }
        return measurements
    }

    /// The phone stays away from the board: the ring may overflow, and what it lost must show.
    func awayPhase() async throws -> [MeasuredValue] {
        if let simulated {
            var faults = SimulatedIngest.Faults()
            faults.refusedKeys = refused.withLock { $0 }
            simulated.setFaults(faults)
        }
        try await board.clock.sleep(for: suite.away)
        let report = try await pull()
        try await worker.drain()
        let state = book.snapshot
        let dropped = Int(state.droppedNow &- (state.droppedAtStart ?? state.droppedNow))
        let gap = book.ringLost.count
        let sampled = Int(suite.away.seconds / Double(suite.sampleInterval))
        let capacity = Int(report.statusBefore.capacity)
        let measurements = [
            MeasuredValue(
                metric: "sync.ring_dropped", statistic: .value, value: Double(dropped), unit: .count,
                definition: Self.definitions.ring)
        ]
        if dropped != gap {
            throw MeasuredFailure(
                failure: CheckFailure(
                    "\(board.place): the board's dropped counter grew by \(dropped) but the central saw a gap of \(gap) seqs"
                ),
                measurements: measurements)
        }
        if sampled > capacity + 1, dropped == 0 {
            throw MeasuredFailure(
                failure: CheckFailure(
                    "\(board.place): about \(sampled) readings were sampled into a ring of \(capacity) while away, "
                        + "yet the board reports no overwritten record"),
                measurements: measurements)
        }
        board.recorder.log(
            .info, "sync",
            "away \(suite.away.seconds / 3600) h: ring of \(capacity) records, ~\(sampled) sampled, \(dropped) overwritten"
        )
        return measurements
    }

    /// Every reading of the board's range is accounted for.
    func accounting() async throws -> [MeasuredValue] {
        let state = book.snapshot
        guard let first = state.firstSeq else { throw CheckFailure("\(board.place): the central never read the log") }
        let serial = serial
        let held = try await heldSequences()
        let dead = Set(try queue.deadLetters().filter { $0.board == serial }.compactMap(\.seq))
        let pending = Set(try queue.oldest(limit: 1_000_000).filter { $0.board == serial }.map(\.seq))
        let ring = book.ringLost
        let range = first <= state.newestSeen ? Array(first...state.newestSeen) : []
        let lost = range.filter {
            !held.contains($0) && !dead.contains($0) && !pending.contains($0) && !ring.contains($0)
        }
        let duplicates = simulated?.ledger.redeliveries ?? state.duplicateReceipts
        let measurements =
            [
                MeasuredValue(
                    metric: "sync.readings", statistic: .value, value: Double(range.count), unit: .count,
                    definition: "readings in the board's seq range during the suite (first STATUS → last READ)"),
                MeasuredValue(
                    metric: "sync.readings_lost", statistic: .value, value: Double(lost.count), unit: .count,
                    definition: Self.definitions.lost),
                MeasuredValue(
                    metric: "sync.duplicates", statistic: .value, value: Double(duplicates), unit: .count,
                    definition: Self.definitions.duplicates),
                MeasuredValue(
                    metric: "sync.dead_lettered", statistic: .value, value: Double(dead.count), unit: .count,
                    definition: Self.definitions.dead),
                MeasuredValue(
                    metric: "sync.ring_dropped", statistic: .value, value: Double(ring.count), unit: .count,
                    definition: Self.definitions.ring),
            ] + book.latencyMeasurements(definition: Self.definitions.latency)
        let early = Set(state.acknowledgedBeforeCommit).sorted()
        guard lost.isEmpty, duplicates == 0, early.isEmpty else {
            throw MeasuredFailure(
                failure: CheckFailure(
                    "\(board.place): the central lost \(lost.count) reading(s) (first: \(lost.prefix(5))), "
                        + "delivered \(duplicates) duplicate(s) and acknowledged \(early.count) reading(s) to the "
                        + "board before committing them (first: \(early.prefix(5)))"),
                measurements: measurements)
        }
        return measurements
    }
}
