import BLECore
import CentralStack
import Testing
import VirtualFarm

/// The worker shell on a real queue file and the simulated ingest, in virtual time.
@Suite("Sync worker")
struct SyncWorkerTests {
    @Test("offline: no request reaches the ingest and no retry is counted; online: everything arrives once")
    func offlineThenOnline() async throws {
        let dir = TemporaryDirectory("worker")
        defer { dir.cleanup() }
        let path = dir.file("q.sqlite")
        let result = try await Simulation.run(seed: 1) { sim in
            let queue = try SyncQueue(path: path)
            try queue.enqueue(board: "SN", records: (1...120).map { ($0, record($0)) }, at: 0)
            let ingest = SimulatedIngest(clock: sim.clock)
            let worker = SyncWorker(queue: queue, uploader: ingest, clock: sim.clock, online: false)
            let offline = try await worker.drain()
            let requestsOffline = ingest.ledger.requests
            let retries = try queue.oldest(limit: 200).map(\.retryCount).reduce(0, +)
            await worker.setOnline(true)
            let online = try await worker.drain()
            return (offline, requestsOffline, retries, online, ingest.ledger, try queue.pendingCount())
        }
        let (offline, requestsOffline, retries, online, ledger, pending) = result
        #expect(offline.attempts == 0)
        #expect(requestsOffline == 0)
        #expect(retries == 0)
        #expect(online.attempts == 3)  // 50 + 50 + 20
        #expect(online.confirmed == 120)
        #expect(ledger.held.count == 120)
        #expect(ledger.redeliveries == 0)
        #expect(pending == 0)
    }

    @Test("an outage is waited out with backoff; refused readings are dead-lettered after 5 attempts, not dropped")
    func outageAndDeadLetters() async throws {
        let dir = TemporaryDirectory("worker")
        defer { dir.cleanup() }
        let path = dir.file("q.sqlite")
        let result = try await Simulation.run(seed: 2) { sim in
            let queue = try SyncQueue(path: path)
            try queue.enqueue(board: "SN", records: (1...75).map { ($0, record($0)) }, at: 0)
            var faults = SimulatedIngest.Faults()
            faults.outages = [RigInstant.origin..<RigInstant(sinceOrigin: .seconds(100))]
            faults.refusedKeys = ["SN/3", "SN/60"]
            let ingest = SimulatedIngest(clock: sim.clock, faults: faults)
            let worker = SyncWorker(queue: queue, uploader: ingest, clock: sim.clock)
            let progress = try await worker.drain()
            return (progress, ingest.ledger, try queue.pendingCount(), try queue.deadLetters(), sim.now)
        }
        let (progress, ledger, pending, dead, end) = result
        // Outage: attempts at 0 s and 60 s fail (60 s backoff, then 120 s); the one at 180 s is after it.
        #expect(progress.failedAttempts == 2)
        #expect(ledger.failedRequests == 2)
        #expect(pending == 0)
        #expect(ledger.held.count == 73)
        #expect(Set(dead.compactMap(\.seq)) == [3, 60])
        #expect(dead.allSatisfy { $0.retryCount == 5 && $0.lastError == "refused by the ingest (injected)" })
        #expect(progress.deadLettered == 2)
        #expect(end > RigInstant(sinceOrigin: .seconds(100)))
    }
}
