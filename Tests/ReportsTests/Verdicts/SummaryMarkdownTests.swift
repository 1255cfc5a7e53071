import Foundation
import Testing

@testable import Reports

@Suite("summary.md: a pull-request comment of at most 100 columns")
struct SummaryMarkdownTests {
    static let runs: [(String, [RunEvent])] = [
        ("verdicts", SampleRuns.verdicts), ("nasty", SampleRuns.nasty), ("bench", SampleRuns.bench),
        ("bench did not open", SampleRuns.benchDidNotOpen), ("interrupted", SampleRuns.interrupted),
    ]

    @Test("no line is wider than 100 columns, whatever the boards send", arguments: runs)
    func width(name: String, events: [RunEvent]) {
        let text = SummaryMarkdown().render(RunResult(events), inputs: SampleRuns.inputs)
        for line in text.split(separator: "\n") {
            #expect(line.count <= 100, "\(name): \(line.count) columns: \(line)")
        }
        #expect(text.utf8.count < 16_000)
    }

    @Test("counts by class, failures with their class, flaky checks, gates and the change against the baseline")
    func content() {
        let text = SummaryMarkdown().render(RunResult(SampleRuns.verdicts), inputs: SampleRuns.inputs)
        #expect(text.contains("**FAILED: 1 not passed, 1 gate(s) breached**"))
        #expect(text.contains("| esp-01 | esp-point | 2 | 1 | 0 | 1 | 1 |"))
        #expect(text.contains("**Not passed by class:** test 1 · board 0 · infrastructure 0"))
        #expect(text.contains("- **test** esp-01 soak / drop rate (attempt 2): link.drop\\_rate value 3.1 /h &gt; 0.5 /h"))
        #expect(text.contains("### Flaky (passed on a later attempt)"))
        #expect(text.contains("passed on attempt 2; before: infrastructure: controller transport"))
        #expect(text.contains("| link.drop\\_rate.value &lt;= 0.5 | board esp-01 | **breached** | 3.1 | - |"))
        #expect(text.contains("| esp-01 | ota.throughput\\_kBps.value | 44 | 41.23 | -6.29 % |"))
        #expect(text.contains("| esp-01 | handshake.connect\\_ms.p50 | 35.2 | 35.81 | +1.73 % |"))
        #expect(!text.contains("gone-01"))
    }

    @Test("markdown and HTML in board-supplied strings are escaped")
    func escaping() {
        let text = SummaryMarkdown().render(RunResult(SampleRuns.nasty))
        #expect(!text.contains("<!--"))
        #expect(!text.contains("<![CDATA["))
        #expect(text.contains("&lt;!-- not a comment --&gt;"))
    }

    @Test("a bench that did not open says so in the headline and below it")
    func benchDidNotOpen() {
        let text = SummaryMarkdown().render(RunResult(SampleRuns.benchDidNotOpen))
        #expect(text.contains("**FAILED: 1 not passed**"))
        #expect(text.contains("**Bench open:** the bench did not open: the bench failed: transport tcp:127.0.0.1:1"))
    }

    @Test("the summary table wraps its key numbers inside their column, within 100 columns")
    func tableWraps() {
        let many = (0..<12).map { SampleRuns.value("metric_\($0).latency_ms", .p95, Double($0) * 11.5, .milliseconds) }
        let result = RunResult([
            .boardStarted(.init(board: "esp-01", profile: "esp-point", at: SampleRuns.at(0))),
            .testFinished(
                .init(
                    board: "esp-01", suite: "s", test: "t", started: SampleRuns.at(0), duration: .zero, outcome: .passed,
                    measurements: many)),
        ])
        let table = result.summaryTable()
        let lines = table.split(separator: "\n")
        #expect(lines.allSatisfy { $0.count <= 100 }, "\(table)")
        #expect(lines.count > 5)
        for value in many { #expect(table.contains(value.metric)) }
    }

    @Test("summary.txt wrapping keeps every line within 100 columns and loses no word")
    func textWrap() {
        let long = "board | profile | " + (0..<40).map { "handshake.ready_ms p50 \($0) ms," }.joined(separator: " ")
        let wrapped = TextWrap.wrap("short line\n" + long + "\n" + String(repeating: "x", count: 250))
        #expect(wrapped.split(separator: "\n").allSatisfy { $0.count <= 100 })
        let words = { (text: String) in text.split(whereSeparator: \.isWhitespace).joined() }
        #expect(words(wrapped) == words("short line\n" + long + "\n" + String(repeating: "x", count: 250)))
    }
}
