import CentralStack
import Foundation
import Hummingbird
import Logging
import Synchronization

/// The rig's local ingest server (Hummingbird): the other end of ``HTTPUploader``. It dedupes by idempotency key
/// (``IngestLedger``) and answers a small JSON API:
///
/// - `POST /readings` with an ``IngestBatch``: stores new readings, answers an ``UploadReceipt``.
/// - `GET /readings`: every held reading, `{"readings": [...]}` sorted by key.
/// - `GET /counts`: ``IngestCounts``.
///
/// A request that is not a batch is answered 400 and changes nothing.
public final class IngestServer: Sendable {
    /// The base URL, e.g. `http://127.0.0.1:41234/`.
    public let url: URL
    private let box: LedgerBox
    private let task: Mutex<Task<Void, any Error>?>

    private init(url: URL, box: LedgerBox, task: Task<Void, any Error>) {
        self.url = url
        self.box = box
        self.task = Mutex(task)
    }

    /// What the server holds now.
    public var snapshot: IngestLedger { box.ledger.withLock { $0 } }

    /// Starts a server on `host`, on `port` or a free one when 0, and returns once it accepts connections.
    public static func start(host: String = "127.0.0.1", port: Int = 0) async throws -> IngestServer {
        let holder = LedgerBox()
        let router = Router()
        router.post("readings") { request, context -> UploadReceipt in
            let batch: IngestBatch
            do { batch = try await request.decode(as: IngestBatch.self, context: context) } catch {
                throw HTTPError(.badRequest, message: "the body is not a batch of readings: \(error)")
            }
            let now = Date().timeIntervalSince1970
            return holder.ledger.withLock { ledger in
                ledger.requests += 1
                return ledger.accept(batch, at: now)
            }
        }
        router.get("readings") { _, _ -> IngestBatch in
            let held = holder.ledger.withLock { $0.held }
            return IngestBatch(readings: held.values.map(\.reading).sorted { $0.key < $1.key })
        }
        router.get("counts") { _, _ -> IngestCounts in holder.ledger.withLock { $0.counts } }
        let (bound, boundContinuation) = AsyncStream.makeStream(of: Int?.self)
        var logger = Logger(label: "blerig.ingest")
        logger.logLevel = .critical  // stopping the server by cancellation logs an error per open connection
        let app = Application(
            router: router, configuration: .init(address: .hostname(host, port: port), serverName: "blerig-ingest"),
            onServerRunning: { channel in
                boundContinuation.yield(channel.localAddress?.port)
                boundContinuation.finish()
            }, logger: logger)
        let task = Task {
            do { try await app.run() } catch {
                boundContinuation.finish()
                throw error
            }
        }
        var port: Int?
        for await value in bound { port = value }
        guard let port, let url = URL(string: "http://\(host):\(port)/") else {
            task.cancel()
            if case let .failure(error) = await task.result {
                throw IngestServerError("could not listen on \(host):\(port.map(String.init) ?? "?"): \(error)")
            }
            throw IngestServerError("could not listen on \(host): the server did not report a port")
        }
        return IngestServer(url: url, box: holder, task: task)
    }

    /// Stops the server and waits until it has closed.
    public func stop() async {
        guard let task = task.withLock({ $0 }) else { return }
        task.cancel()
        _ = await task.result
    }
}

/// The ledger, shared between the route handlers and the server object.
private final class LedgerBox: Sendable {
    let ledger = Mutex(IngestLedger())
}

extension UploadReceipt: ResponseEncodable {}
extension IngestBatch: ResponseEncodable {}
extension IngestCounts: ResponseEncodable {}

/// The ingest server could not start.
public struct IngestServerError: Error, Sendable, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}
