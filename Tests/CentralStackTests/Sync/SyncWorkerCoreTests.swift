import BLECore
import CentralStack
import Testing

/// The worker's rules as events in, actions out: every action it emits is asserted.
@Suite("Sync worker core")
struct SyncWorkerCoreTests {
    static let t0 = RigInstant.origin

    static func items(_ seqs: ClosedRange<UInt32>, retries: Int = 0) -> [QueuedReading] {
        seqs.map {
            QueuedReading(
                id: Int64($0), board: "SN", seq: $0, payload: record($0), createdAt: 0, retryCount: retries,
                lastError: nil)
        }
    }

    @Test("offline: nothing is fetched, uploaded or counted; coming online starts with the oldest 50")
    func reachability() {
        var core = SyncWorkerCore()
        #expect(core.reachabilityChanged(online: false, now: Self.t0) == [])
        #expect(core.workQueued(now: Self.t0) == [])
        #expect(core.retryDue(now: Self.t0) == [])
        #expect(core.reachabilityChanged(online: true, now: Self.t0) == [.fetch(limit: 50)])
        // Already fetching: more work does not start a second fetch.
        #expect(core.workQueued(now: Self.t0) == [])
    }

    @Test("a batch of 50 goes up; the confirmed keys are deleted and the next batch fetched")
    func batches() {
        var core = SyncWorkerCore()
        _ = core.reachabilityChanged(online: true, now: Self.t0)
        let batch = Self.items(1...60)
        let upload = core.fetched(batch, now: Self.t0)
        #expect(upload == [.upload(Array(batch.prefix(50)))])
        let receipt = UploadReceipt(accepted: batch.prefix(50).map(\.key))
        #expect(core.uploaded(receipt, now: Self.t0) == [.delete(ids: (1...50).map(Int64.init)), .fetch(limit: 50)])
        #expect(core.fetched([], now: Self.t0) == [.drained])
    }

    @Test("only what the ingest confirmed is deleted; refused readings count a retry and back off")
    func partialReceipt() {
        var core = SyncWorkerCore()
        _ = core.reachabilityChanged(online: true, now: Self.t0)
        let batch = Self.items(1...3)
        _ = core.fetched(batch, now: Self.t0)
        let receipt = UploadReceipt(accepted: ["SN/1"], rejected: [.init(key: "SN/2", reason: "bad")])
        let actions = core.uploaded(receipt, now: Self.t0)
        #expect(
            actions == [
                .delete(ids: [1]),
                .recordFailures(
                    [.init(id: 2, error: "bad"), .init(id: 3, error: "the ingest's answer did not mention SN/3")],
                    deadLetter: []),
                .wait(until: Self.t0.advanced(by: .seconds(60))),
            ])
        // Nothing happens before the deadline, not even when more work arrives.
        #expect(core.workQueued(now: Self.t0.advanced(by: .seconds(59))) == [])
        #expect(core.retryDue(now: Self.t0.advanced(by: .seconds(60))) == [.fetch(limit: 50)])
    }

    @Test("a failed batch counts a retry for each reading; the fifth attempt dead-letters; backoff doubles, capped")
    func retriesAndDeadLetters() {
        var core = SyncWorkerCore()
        var now = Self.t0
        _ = core.reachabilityChanged(online: true, now: now)
        var expectedDelay: Duration = .seconds(60)
        for attempt in 0..<5 {
            let batch = Self.items(1...2, retries: attempt)
            #expect(core.fetched(batch, now: now) == [.upload(batch)])
            let dead: [Int64] = attempt == 4 ? [1, 2] : []
            let actions = core.uploadFailed("HTTP 503", now: now)
            #expect(
                actions == [
                    .recordFailures(
                        [.init(id: 1, error: "HTTP 503"), .init(id: 2, error: "HTTP 503")], deadLetter: dead),
                    .wait(until: now.advanced(by: expectedDelay)),
                ])
            now = now.advanced(by: expectedDelay)
            #expect(core.retryDue(now: now) == [.fetch(limit: 50)])
            expectedDelay = min(expectedDelay * 2, .seconds(3600))
        }
    }

    @Test("going offline during an upload: its result is applied, but nothing further is attempted")
    func offlineMidUpload() {
        var core = SyncWorkerCore()
        _ = core.reachabilityChanged(online: true, now: Self.t0)
        let batch = Self.items(1...2)
        _ = core.fetched(batch, now: Self.t0)
        #expect(core.reachabilityChanged(online: false, now: Self.t0) == [])
        #expect(core.uploaded(UploadReceipt(accepted: batch.map(\.key)), now: Self.t0) == [.delete(ids: [1, 2])])
        #expect(core.reachabilityChanged(online: true, now: Self.t0) == [.fetch(limit: 50)])
    }

    @Test("after the shell failed to perform an action, the next event starts over with a fetch")
    func abandon() {
        var core = SyncWorkerCore()
        #expect(core.reachabilityChanged(online: true, now: Self.t0) == [.fetch(limit: 50)])
        #expect(core.workQueued(now: Self.t0) == [])
        core.abandon()
        #expect(core.workQueued(now: Self.t0) == [.fetch(limit: 50)])
    }
}
