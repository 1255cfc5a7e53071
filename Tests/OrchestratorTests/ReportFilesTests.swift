import Benches
import Foundation
import Orchestrator
import Reports
import Synchronization
import Testing

/// The reports a real campaign writes: every file there, the same testcases whatever the faults or however the
/// run ends, and the metrics pushed to a (local, recording) Pushgateway.
@Suite("Report files of a real campaign on rigs/virtual.yaml", .serialized)
struct ReportFilesTests {
    static let rigText = (try? String(contentsOfFile: RigTesting.path("rigs/virtual.yaml"), encoding: .utf8)) ?? ""

    /// rigs/virtual.yaml with `drops_per_hour` set to `drops`.
    static func rig(dropsPerHour drops: Int) throws -> String {
        let line = "    drops_per_hour: 0 "
        try #require(rigText.contains(line), "rigs/virtual.yaml no longer has '\(line)'")
        return rigText.replacingOccurrences(of: line, with: "    drops_per_hour: \(drops) ")
    }

    static func testcases(_ result: CampaignResult) throws -> [String] {
        let xml = try String(contentsOfFile: "\(result.directory)/junit.xml", encoding: .utf8)
        var cases: [String] = []
        var rest = Substring(xml)
        while let start = rest.range(of: "<testcase name=\"") {
            rest = rest[start.upperBound...]
            let name = rest.prefix { $0 != "\"" }
            guard let classStart = rest.range(of: "classname=\"") else { break }
            let classname = rest[classStart.upperBound...].prefix { $0 != "\"" }
            cases.append("\(classname) / \(name)")
        }
        return cases.sorted()
    }

    @Test("injected drops change outcomes, not the testcases; a run stopped early has them all too")
    func sameTestcases() async throws {
        let clean = try await CampaignTests.run(Self.rig(dropsPerHour: 0))
        let dropped = try await CampaignTests.run(Self.rig(dropsPerHour: 2))
        let stopped = try await CampaignTests.run(
            Self.rig(dropsPerHour: 0),
            options: RunOptions(outputRoot: CampaignTests.outputRoot(), timeout: .seconds(2)))
        let expected = try Self.testcases(clean)
        #expect(expected.count > 40)
        #expect(dropped.result.counts.failed > 0, "the drops should fail the soak checks")
        #expect(try Self.testcases(dropped) == expected)
        #expect(stopped.interruption != nil)
        #expect(try Self.testcases(stopped) == expected)
        // Checks that do not apply to a profile are not testcases.
        #expect(!expected.contains { $0.hasPrefix("nano-01.ota ") || $0.hasPrefix("hrm-01.pairing ") })
        #expect(expected.contains("bench / open") && expected.contains("bench / run"))
    }

    @Test("the run directory has junit.xml, summary.md, report.html, metrics.prom and summary.txt")
    func everyFile() async throws {
        let result = try await CampaignTests.run(Self.rig(dropsPerHour: 0))
        for name in ["junit.xml", "summary.md", "report.html", "metrics.prom", "summary.txt"] {
            let text = try String(contentsOfFile: "\(result.directory)/\(name)", encoding: .utf8)
            #expect(!text.isEmpty, "\(name) is empty")
            if name.hasPrefix("summary") {
                let wide = text.split(separator: "\n").filter { $0.count > 100 }
                #expect(wide.isEmpty, "\(name): \(wide)")
            }
        }
        let prom = try String(contentsOfFile: "\(result.directory)/metrics.prom", encoding: .utf8)
        #expect(prom.hasSuffix("# EOF\n"))
        // A histogram where the check kept its raw samples, its percentiles as gauges where it did not.
        #expect(
            prom.contains("blerig_handshake_connect_seconds_bucket{")
                || prom.contains("blerig_handshake_connect_p50_seconds{"))
        #expect(prom.contains("blerig_handshake_connect_samples{") || prom.contains("blerig_handshake_connect_seconds_count{"))
    }

    /// History stores the run beside the rendering of its reports: it gets the same result, once, and before
    /// junit.xml exists.
    @Test("the folded result is handed over once, before the final reports are written")
    func resultReadyBeforeReports() async throws {
        let root = CampaignTests.outputRoot()
        let handed = Mutex<[(result: RunResult, junitWritten: Bool)]>([])
        let options = RunOptions(outputRoot: root) { result in
            let directories = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
            let written = directories.contains {
                FileManager.default.fileExists(atPath: "\(root)/\($0)/junit.xml")
            }
            handed.withLock { $0.append((result, written)) }
        }
        let run = try await CampaignTests.run(Self.rig(dropsPerHour: 0), options: options)
        let calls = handed.withLock { $0 }
        try #require(calls.count == 1)
        #expect(!calls[0].junitWritten)
        #expect(calls[0].result.counts == run.result.counts)
        #expect(calls[0].result.boards.map(\.id) == run.result.boards.map(\.id))
        #expect(calls[0].result.run?.runID == run.runID)
    }

    @Test("--push-metrics PUTs the run's metrics as Prometheus text to /metrics/job/blerig/rig/<rig>")
    func pushesToAPushgateway() async throws {
        let server = try RecordingServer()
        defer { server.stop() }
        let result = try await CampaignTests.run(Self.rig(dropsPerHour: 0))
        try await MetricsPush("http://127.0.0.1:\(server.port)").push(result.result)
        let request = try server.request()
        #expect(request.method == "PUT")
        #expect(request.path == "/metrics/job/blerig/rig/virtual-farm")
        #expect(request.contentType == "text/plain; version=0.0.4; charset=utf-8")
        #expect(request.body.contains("# TYPE blerig_checks_total counter"))
        #expect(request.body.contains("blerig_checks_total{board=\"esp-01\",profile=\"esp-point\",status=\"passed\"}"))
        #expect(request.body.contains("_seconds{board=\"esp-01\""))
        #expect(!request.body.contains("# EOF"))
    }

    @Test("a Pushgateway that refuses says so, with the URL and the status")
    func pushRefused() async throws {
        let server = try RecordingServer(status: 400)
        defer { server.stop() }
        let result = RunResult([RunEvent]())
        await #expect {
            try await MetricsPush("http://127.0.0.1:\(server.port)").push(result)
        } throws: { error in
            "\(error)".contains("http://127.0.0.1:\(server.port)/metrics/job/blerig/rig@base64/=")
                && "\(error)".contains("HTTP 400")
        }
        #expect(throws: PushError.self) { try MetricsPush("ftp://example.org") }
    }
}

/// A one-request HTTP server in Python's standard library that records what it was sent: a stand-in for a
/// Pushgateway that nobody here wrote.
final class RecordingServer: Sendable {
    struct Request: Decodable {
        var method: String
        var path: String
        var contentType: String
        var body: String
    }

    let port: Int
    private let process: Process
    private let output: Pipe

    static let script = """
        import http.server, json, sys
        status = int(sys.argv[1])
        class Handler(http.server.BaseHTTPRequestHandler):
            def do_PUT(self):
                body = self.rfile.read(int(self.headers.get('Content-Length', 0))).decode()
                answer = b'recorded' if status < 300 else b'bad request'
                self.send_response(status)
                # The answer's length, so the client is done before the record below fills the test's pipe.
                self.send_header('Content-Length', str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)
                self.wfile.flush()
                print(json.dumps({'method': 'PUT', 'path': self.path,
                                  'contentType': self.headers.get('Content-Type', ''), 'body': body}), flush=True)
            def log_message(self, *args):
                pass
        server = http.server.HTTPServer(('127.0.0.1', 0), Handler)
        print(server.server_address[1], flush=True)
        server.handle_request()
        """

    init(status: Int = 200) throws {
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", Self.script, String(status)]
        output = Pipe()
        process.standardOutput = output
        try process.run()
        var line = Data()
        while let byte = try output.fileHandleForReading.read(upToCount: 1), !byte.isEmpty, byte != Data("\n".utf8) {
            line += byte
        }
        port = try #require(Int(String(decoding: line, as: UTF8.self)), "the recording server did not start")
    }

    /// The request it recorded (waits for the server to exit).
    func request() throws -> Request {
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return try JSONDecoder().decode(Request.self, from: data)
    }

    func stop() {
        if process.isRunning { process.terminate() }
    }
}
