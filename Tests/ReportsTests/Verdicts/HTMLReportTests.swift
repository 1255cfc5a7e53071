import Foundation
import Testing

@testable import Reports

@Suite("report.html: one self-contained page with SVG charts, drawn by Chromium")
struct HTMLReportTests {
    /// Where the rendered page and its screenshot are kept: `BLERIG_TEST_OUTPUT` if set, else a directory in the
    /// system's temporary directory (printed by the test).
    static var outputDirectory: URL {
        let root = ProcessInfo.processInfo.environment["BLERIG_TEST_OUTPUT"].map(URL.init(fileURLWithPath:))
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("blerig-test-output")
        return root.appendingPathComponent("report-html")
    }

    /// Measures every plotted series in the browser: how many charts, how many series paths and bars have a
    /// nonzero bounding box, and how many have none; written onto `<body>` for `--dump-dom` to show.
    static let probe = """
        <script>
        const marks = [...document.querySelectorAll('svg.chart path.series, svg.chart rect.bar')];
        const drawn = marks.filter(m => { const b = m.getBBox(); return b.width > 0 || b.height > 0; });
        document.body.setAttribute('data-charts', document.querySelectorAll('svg.chart').length);
        document.body.setAttribute('data-marks', marks.length);
        document.body.setAttribute('data-drawn', drawn.length);
        document.body.setAttribute('data-series', drawn.filter(m => m.tagName == 'path')
          .map(m => m.getAttribute('data-series')).join('|'));
        </script>
        """

    @Test("Chromium draws every chart: each series path and bar has a nonzero size; a screenshot is kept")
    func drawnInChromium() async throws {
        let html = HTMLReport().render(RunResult(SampleRuns.verdicts), inputs: SampleRuns.inputs)
        let directory = Self.outputDirectory
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let page = directory.appendingPathComponent("report.html")
        try Data(html.utf8).write(to: page)
        let probed = directory.appendingPathComponent("report-probed.html")
        try Data(html.replacingOccurrences(of: "</body>", with: Self.probe + "</body>").utf8).write(to: probed)
        let dom = try await Chromium.dumpDOM(probed)
        func attribute(_ name: String) -> String? {
            guard let range = dom.range(of: "\(name)=\"") else { return nil }
            return String(dom[range.upperBound...].prefix { $0 != "\"" })
        }
        let charts = try #require(attribute("data-charts").flatMap(Int.init), "the probe did not run: \(dom.prefix(300))")
        let marks = try #require(attribute("data-marks").flatMap(Int.init))
        let drawn = try #require(attribute("data-drawn").flatMap(Int.init))
        // classes, latency, OTA bars, drops, two trends
        #expect(charts >= 6)
        #expect(marks >= 12)
        #expect(drawn == marks, "\(marks - drawn) series or bars have no size")
        let series = attribute("data-series") ?? ""
        #expect(series.contains("esp-01"))
        #expect(series.contains("nano-01 (percentiles)"))
        let png = directory.appendingPathComponent("report.png")
        try? FileManager.default.removeItem(at: png)
        try await Chromium.screenshot(page, to: png)
        let size = (try FileManager.default.attributesOfItem(atPath: png.path)[.size] as? Int) ?? 0
        #expect(size > 10_000, "screenshot \(png.path) is \(size) bytes")
        print("report.html and its screenshot: \(directory.path)")
    }

    @Test("the page fetches nothing: no script, stylesheet, image, font or frame from elsewhere")
    func selfContained() {
        let html = HTMLReport().render(RunResult(SampleRuns.verdicts), inputs: SampleRuns.inputs)
        for needle in ["<script", "<link", "<img", "<iframe", "src=", "href=", "url(", "@import"] {
            #expect(!html.contains(needle), "found \(needle)")
        }
    }

    @Test("every board-supplied string is escaped: nothing a board sends becomes markup")
    func escaping() {
        var events = SampleRuns.nasty
        events.insert(
            .boardStarted(.init(board: "<script>alert(1)</script>", profile: "x\"><img src=x>", at: SampleRuns.at(0))),
            at: 1)
        let html = HTMLReport().render(RunResult(events), inputs: SampleRuns.inputs)
        #expect(!html.contains("<script>alert"))
        #expect(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        #expect(!html.contains("<img"))
        #expect(!html.contains("<!-- not a comment"))
        #expect(html.contains("\\x07"))
    }

    @Test("trends mark the baseline; OTA throughput shows the link's capacity; drops show their HCI reasons")
    func content() {
        let html = HTMLReport().render(RunResult(SampleRuns.verdicts), inputs: SampleRuns.inputs)
        #expect(html.contains("baseline run-4"))
        #expect(html.contains("link capacity") || html.contains("unacknowledged capacity is 173.9 kB/s"))
        #expect(html.contains("esp-01 · 0x08"))
        #expect(html.contains("esp-01 · 0x13"))
        #expect(html.contains("breached"))
    }

    @Test("OTA throughput samples along a transfer are drawn as a line over the transfer")
    func otaAlongTheTransfer() {
        var events = SampleRuns.verdicts
        events.insert(
            .testFinished(
                .init(
                    board: "nano-01", suite: "ota", test: "windowed", started: SampleRuns.at(50), duration: .seconds(9),
                    outcome: .passed,
                    measurements: [SampleRuns.value("ota.throughput_kBps", .value, 60, .kilobytesPerSecond)],
                    samples: [MetricSamples(metric: "ota.throughput_kBps", unit: .kilobytesPerSecond, values: [40, 55, 62, 61, 60])])),
            at: events.count - 1)
        let html = HTMLReport().render(RunResult(events))
        #expect(html.contains("OTA throughput over the transfer"))
        #expect(html.contains("data-series=\"nano-01 windowed\""))
    }
}
