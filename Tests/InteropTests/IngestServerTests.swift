import BLECore
import CentralStack
import Foundation
import IngestServer
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The HTTP uploader against the real Hummingbird ingest, in process on a free port. In the interop tier because
/// the server's event loops keep descriptors open for the life of the process, which the transport tests' leak
/// checks (in the other test process) would see.
@Suite("Ingest server and HTTP uploader")
struct IngestServerTests {
    static func reading(_ board: String, _ seq: UInt32, byte: UInt8 = 0xAB) -> IngestReading {
        IngestReading(
            key: "\(board)/\(seq)", board: board, seq: seq, payload: Hex.encode([UInt8](repeating: byte, count: 14)))
    }

    @Test("a batch is stored once per key; a redelivery is confirmed as a duplicate; a conflicting payload refused")
    func dedupes() async throws {
        let server = try await IngestServer.start()
        defer { Task { await server.stop() } }
        let uploader = HTTPUploader(base: server.url)
        let first = try await uploader.upload(IngestBatch(readings: (1...50).map { Self.reading("SN", $0) }))
        #expect(first.accepted.count == 50)
        #expect(first.duplicates.isEmpty)
        let again = try await uploader.upload(
            IngestBatch(readings: [Self.reading("SN", 50), Self.reading("SN", 51), Self.reading("SN", 1, byte: 0)]))
        #expect(again.accepted == ["SN/50", "SN/51"])
        #expect(again.duplicates == ["SN/50"])
        #expect(again.rejected.map(\.key) == ["SN/1"])
        let held = try await uploader.heldReadings()
        #expect(held.count == 51)
        #expect(Set(held.map(\.key)).count == 51)
        let counts = try await uploader.counts()
        #expect(counts.held == 51)
        #expect(counts.redeliveries == 1)
        #expect(counts.conflicts == 1)
        #expect(counts.requests == 2)
        await server.stop()
    }

    @Test("a body that is not a batch is answered 400 and changes nothing")
    func badRequest() async throws {
        let server = try await IngestServer.start()
        var request = URLRequest(url: server.url.appendingPathComponent("readings"))
        request.httpMethod = "POST"
        request.httpBody = Data("{\"readings\": 12}".utf8)
        let (_, response) = try await URLSession.shared.data(for: request)
        #expect((response as? HTTPURLResponse)?.statusCode == 400)
        #expect(server.snapshot.held.isEmpty)
        await server.stop()
    }

    @Test("the worker drains a real queue through HTTP: every reading held once, the queue empty")
    func workerOverHTTP() async throws {
        let server = try await IngestServer.start()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("blerig-http-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let queue = try SyncQueue(path: directory.appendingPathComponent("q.sqlite").path)
        try queue.enqueue(
            board: "SN", records: (1...175).map { ($0, [UInt8](repeating: UInt8($0 & 0xFF), count: 14)) }, at: 0)
        let worker = SyncWorker(queue: queue, uploader: HTTPUploader(base: server.url), clock: WallClock())
        let progress = try await worker.drain()
        #expect(progress.attempts == 4)
        #expect(progress.confirmed == 175)
        #expect(try queue.pendingCount() == 0)
        #expect(server.snapshot.held.count == 175)
        #expect(server.snapshot.redeliveries == 0)
        await server.stop()
    }

    @Test("a server that is gone fails the batch with the URL; nothing is confirmed")
    func unreachable() async throws {
        let server = try await IngestServer.start()
        let url = server.url
        await server.stop()
        let uploader = HTTPUploader(base: url, timeout: 5)
        await #expect(throws: UploadError.self) {
            _ = try await uploader.upload(IngestBatch(readings: [Self.reading("SN", 1)]))
        }
    }
}
