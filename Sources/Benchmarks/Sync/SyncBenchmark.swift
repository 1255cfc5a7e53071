import BLECore
import CentralStack
import Foundation
import IngestServer

/// `blerig bench sync`: the sync queue's throughput against the real local ingest server (Hummingbird on
/// 127.0.0.1), on a real queue file with `synchronous = FULL`.
///
/// Enqueue is timed as the log puller commits: one durable transaction per READ chunk. Upload + delete is the
/// worker draining the queue in batches of 50: each batch a POST, its receipt, and the delete transaction.
public enum SyncBenchmark {
    public struct Result: Sendable {
        public var items: Int
        public var chunk: Int
        /// Wall time of all enqueue transactions.
        public var enqueue: Duration
        /// Wall time of the drain: fetch, POST, receipt, delete, per batch.
        public var drain: Duration
        public var batches: Int

        public var enqueuePerSecond: Double { Double(items) / enqueue.seconds }
        public var drainPerSecond: Double { Double(items) / drain.seconds }
        /// Enqueue + upload + delete of every item, end to end.
        public var endToEndPerSecond: Double { Double(items) / (enqueue + drain).seconds }
    }

    /// Queues `items` readings in commits of `chunk`, then drains them to a fresh local ingest server. `directory`
    /// holds the queue file (a temporary directory when nil).
    public static func run(items: Int, chunk: Int, directory: String? = nil) async throws -> Result {
        let base = directory ?? FileManager.default.temporaryDirectory.path
        let folder = base + "/blerig-bench-sync-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let server = try await IngestServer.start()
        do {
            let queue = try SyncQueue(path: folder + "/queue.sqlite")
            let clock = ContinuousClock()
            let record: (UInt32) -> [UInt8] = { seq in
                var bytes = withUnsafeBytes(of: seq.littleEndian, Array.init)
                bytes += withUnsafeBytes(of: (1_700_000_000 + seq * 3600).littleEndian, Array.init)
                return bytes + [0xF4, 0x07, 0x88, 0x13, 0x74, 0x0E]
            }
            let start = clock.now
            var seq: UInt32 = 1
            while seq <= UInt32(items) {
                let last = min(UInt32(items), seq + UInt32(chunk) - 1)
                try queue.enqueue(board: "BENCH", records: (seq...last).map { ($0, record($0)) }, at: 0)
                seq = last + 1
            }
            let enqueued = clock.now
            let worker = SyncWorker(queue: queue, uploader: HTTPUploader(base: server.url), clock: WallClock())
            let progress = try await worker.drain()
            let drained = clock.now
            let held = server.snapshot.held.count
            await server.stop()
            guard progress.confirmed == items, held == items, try queue.pendingCount() == 0 else {
                throw SyncBenchmarkError(
                    "the drain confirmed \(progress.confirmed) of \(items) readings and the server holds \(held)")
            }
            return Result(
                items: items, chunk: chunk, enqueue: start.duration(to: enqueued),
                drain: enqueued.duration(to: drained),
                batches: progress.attempts)
        } catch {
            await server.stop()
            throw error
        }
    }
}

public struct SyncBenchmarkError: Error, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}
