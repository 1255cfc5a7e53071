import Testing

@testable import Reports

@Suite("Text summary: the terminal table and failing-check lines")
struct TextSummaryTests {
    let result = RunResult(SampleRuns.bench)

    @Test("the table has a row per board, key numbers and a total")
    func table() {
        #expect(
            result.summaryTable(metrics: ["handshake.ready_ms"]) == """
                board  | profile   | passed | failed | errors | skipped | key numbers
                -------+-----------+--------+--------+--------+---------+--------------------------------
                esp-01 | esp-point |      1 |      0 |      1 |       1 | handshake.ready_ms p95 98.4 ms
                esp-02 | esp-point |      0 |      1 |      1 |       0 | handshake.ready_ms p95 212.4 ms
                -------+-----------+--------+--------+--------+---------+--------------------------------
                total  |           |      1 |      1 |      2 |       1 |

                """)
    }

    @Test("without a metric list every metric's key number is shown, in the order first measured")
    func tableShowsAllMetrics() {
        let rows = result.summaryTable(width: 1000).split(separator: "\n")
        #expect(rows[2].hasSuffix("| handshake.connect_ms p95 31.5 ms, handshake.ready_ms p95 98.4 ms"))
        #expect(rows.allSatisfy { $0.count == rows[2].count || !$0.hasPrefix("-") })
    }

    @Test("key numbers follow the preferred statistics and the chosen metrics")
    func keyNumbers() {
        let board = result.boards[0]
        #expect(
            RunResult.keyNumbers(board, keyStatistics: [.p50], metrics: ["handshake.ready_ms", "missing"])
                == ["handshake.ready_ms p50 80.25 ms"])
        #expect(
            RunResult.keyNumbers(board, keyStatistics: [.count], metrics: nil)
                == ["handshake.connect_ms p95 31.5 ms", "handshake.ready_ms count 200"])
    }

    @Test("failing checks are listed one line each, errors marked")
    func failingLines() {
        #expect(
            result.failingCheckLines() == [
                "esp-01 soak.hold: error: the check started at +3.000000s and the log ended before it reported a "
                    + "result",
                "esp-02 handshake.ready: handshake.ready_ms p95 212.4 ms > 150 ms",
                "esp-02 ota.resume: error: lease on esp-02 lost",
            ])
    }

    @Test("control characters and line breaks cannot break the terminal output")
    func sanitised() {
        let nasty = RunResult(SampleRuns.nasty)
        for line in nasty.failingCheckLines() + nasty.summaryTable().split(separator: "\n").map(String.init) {
            #expect(!line.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }, "\(line)")
        }
        #expect(nasty.failingCheckLines().count == 2)
    }

    @Test("headline names board, suite and check")
    func headline() {
        #expect(
            result.boards[1].tests[0].headline == "esp-02 handshake.ready: handshake.ready_ms p95 212.4 ms > 150 ms")
        #expect(result.boards[0].tests[0].headline == nil)
    }
}
