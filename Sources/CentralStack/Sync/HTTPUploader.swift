import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Uploads batches to an ingest server over HTTP: `POST {base}/readings` with an ``IngestBatch`` as JSON; a 200
/// answer carries an ``UploadReceipt``. Any other status, a transport error or an undecodable answer fails the
/// whole batch (nothing confirmed).
public final class HTTPUploader: Uploader {
    public let base: URL
    private let session: URLSession

    public init(base: URL, timeout: TimeInterval = 30) {
        self.base = base
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.httpMaximumConnectionsPerHost = 1
        session = URLSession(configuration: configuration)
    }

    deinit { session.finishTasksAndInvalidate() }

    public func upload(_ batch: IngestBatch) async throws(UploadError) -> UploadReceipt {
        var request = URLRequest(url: base.appendingPathComponent("readings"))
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        do { request.httpBody = try JSONEncoder().encode(batch) } catch {
            throw UploadError("encoding the batch: \(error)")
        }
        let data: Data
        let response: URLResponse
        do { (data, response) = try await session.data(for: request) } catch {
            throw UploadError("POST \(request.url?.absoluteString ?? "?"): \(error.localizedDescription)")
        }
        guard let http = response as? HTTPURLResponse else { throw UploadError("POST readings: not an HTTP answer") }
        guard http.statusCode == 200 else {
            let body = String(decoding: data.prefix(200), as: UTF8.self)
            throw UploadError("POST \(request.url?.absoluteString ?? "?"): HTTP \(http.statusCode) \(body)")
        }
        do { return try JSONDecoder().decode(UploadReceipt.self, from: data) } catch {
            throw UploadError("POST readings: the answer is not a receipt: \(error)")
        }
    }

    /// `GET {base}/readings`: every reading the ingest holds.
    public func heldReadings() async throws(UploadError) -> [IngestReading] {
        try await get("readings", as: IngestBatch.self).readings
    }

    /// `GET {base}/counts`.
    public func counts() async throws(UploadError) -> IngestCounts { try await get("counts", as: IngestCounts.self) }

    private func get<T: Decodable>(_ path: String, as type: T.Type) async throws(UploadError) -> T {
        let url = base.appendingPathComponent(path)
        let data: Data
        let response: URLResponse
        do { (data, response) = try await session.data(from: url) } catch {
            throw UploadError("GET \(url.absoluteString): \(error.localizedDescription)")
        }
        guard (response as? HTTPURLResponse)?.statusCode == 200 else {
            throw UploadError("GET \(url.absoluteString): HTTP \((response as? HTTPURLResponse)?.statusCode ?? 0)")
        }
        do { return try JSONDecoder().decode(T.self, from: data) } catch {
            throw UploadError("GET \(url.absoluteString): unexpected answer: \(error)")
        }
    }
}
