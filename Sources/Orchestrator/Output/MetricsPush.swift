import BLECore
import Foundation
import Reports

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Sends a run's numbers to a Prometheus Pushgateway (`--push-metrics URL`): an HTTP PUT of the same families as
/// `metrics.prom`, in Prometheus text format 0.0.4 (the Pushgateway reads no OpenMetrics), to
/// `<URL>/metrics/job/blerig/rig/<rig>`. PUT replaces the group, so each rig keeps the numbers of its latest
/// run; scrape the Pushgateway with `honor_labels: true`. A URL that already names a group
/// (`…/metrics/job/<job>…`) is used as it is.
public struct MetricsPush: Sendable {
    public let base: URL

    /// `url` must be http or https with a host.
    public init(_ url: String) throws(PushError) {
        guard let parsed = URL(string: url), ["http", "https"].contains(parsed.scheme?.lowercased() ?? ""),
            parsed.host?.isEmpty == false
        else {
            throw PushError(url: url, message: "not an http(s) URL with a host, such as http://localhost:9091")
        }
        base = parsed
    }

    /// Where a run of `rig` goes.
    public func target(rig: String) -> URL {
        if base.path.contains("/metrics/job/") { return base }
        var path = base.path
        while path.hasSuffix("/") { path.removeLast() }
        // A label value with a slash (or an empty one) goes base64url-encoded, as the Pushgateway API says.
        let value: String
        let key: String
        if rig.isEmpty || rig.contains("/") {
            key = "rig@base64"
            value = Data(rig.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_")
            + (rig.isEmpty ? "=" : "")
        } else {
            key = "rig"
            value = rig.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(["/"])) ?? rig
        }
        var components = URLComponents(url: base, resolvingAgainstBaseURL: false)!
        components.percentEncodedPath = path + "/metrics/job/blerig/\(key)/\(value)"
        return components.url!
    }

    /// PUTs `result`'s numbers; throws what went wrong, with the URL and the gateway's answer.
    public func push(_ result: RunResult, timeout: Duration = .seconds(30)) async throws(PushError) {
        let url = target(rig: result.run?.rig ?? "")
        var request = URLRequest(url: url, timeoutInterval: timeout.seconds)
        request.httpMethod = "PUT"
        request.setValue(OpenMetricsWriter.Format.prometheusText.contentType, forHTTPHeaderField: "Content-Type")
        let body = Data(OpenMetricsWriter().render(result, format: .prometheusText).utf8)
        request.httpBody = body
        // A length, not chunks, and no wait for 100-continue: what every gateway and proxy takes.
        request.setValue(String(body.count), forHTTPHeaderField: "Content-Length")
        request.setValue("", forHTTPHeaderField: "Expect")
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout.seconds
        let session = URLSession(configuration: configuration)
        defer { session.finishTasksAndInvalidate() }
        let (data, response): (Data, URLResponse)
        do {
            (data, response) = try await session.data(for: request)
        } catch {
            throw PushError(url: url.absoluteString, message: error.localizedDescription)
        }
        guard let http = response as? HTTPURLResponse, (200..<300).contains(http.statusCode) else {
            let status = (response as? HTTPURLResponse)?.statusCode ?? 0
            let body = String(decoding: data.prefix(500), as: UTF8.self)
            throw PushError(url: url.absoluteString, message: "HTTP \(status): \(body)")
        }
    }
}

/// Pushing the metrics failed: where to and why.
public struct PushError: Error, Sendable, CustomStringConvertible {
    public var url: String
    public var message: String

    public var description: String { "--push-metrics \(url): \(message)" }
}

