import Foundation
import Testing

@testable import CentralStack

/// `blerig sync requeue`'s operation on a real SQLite queue file.
@Suite("sync queue: requeuing dead letters")
struct SyncQueueRequeueTests {
    /// Two readings of B and one of C dead-lettered, one of B still pending.
    static func queueWithDeadLetters(_ dir: TemporaryDirectory) throws -> SyncQueue {
        let queue = try SyncQueue(path: dir.file("q.sqlite"))
        try queue.enqueue(board: "B", records: [(1, record(1)), (2, record(2)), (3, record(3))], at: 0)
        try queue.enqueue(board: "C", records: [(7, record(7))], at: 0)
        let items = try queue.oldest(limit: 10)
        let dead = items.filter { [1, 2, 7].contains($0.seq) }.map(\.id)
        try queue.recordFailures(dead.map { ($0, "HTTP 422 refused") }, deadLetter: Set(dead), at: 1)
        return queue
    }

    @Test("requeue moves every dead letter back with its payload and key, its attempts reset, and empties the dead letters")
    func requeuesAll() throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanup() }
        let queue = try Self.queueWithDeadLetters(dir)
        #expect(try queue.deadLetters().count == 3)
        #expect(try queue.requeueDeadLetters() == 3)
        #expect(try queue.deadLetters().isEmpty)
        let pending = try queue.oldest(limit: 10)
        #expect(Set(pending.map { "\($0.board)/\($0.seq)" }) == ["B/1", "B/2", "B/3", "C/7"])
        #expect(pending.allSatisfy { $0.retryCount == 0 })
        #expect(pending.first { $0.seq == 2 }?.payload == record(2))
        // Requeued, a reading can be queued again by a pull without a duplicate.
        #expect(try queue.enqueue(board: "B", records: [(1, record(1))], at: 2) == 0)
    }

    @Test("requeue of one board leaves the other board's dead letters where they are")
    func requeuesOneBoard() throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanup() }
        let queue = try Self.queueWithDeadLetters(dir)
        #expect(try queue.requeueDeadLetters(board: "C") == 1)
        #expect(try queue.deadLetters().map { "\($0.board)/\($0.seq ?? 0)" } == ["B/1", "B/2"])
        #expect(try queue.pendingCount() == 2)
    }
}
