import Foundation
import Testing

@testable import Reports

/// The JUnit's `gates` testsuite: one testcase per gate, counted in the totals, valid against junit-10.xsd.
@Suite("JUnitWriter: the gates testsuite")
struct JUnitGatesTests {
    static let verdicts = [
        GateVerdict(
            gate: "handshake.ready_ms.p50 <= 800", scope: "rig", kind: .absolute, decision: .held, measured: 212.5,
            message: "worst esp-01: handshake.ready_ms.p50 212.5 ms <= 800 over 2 board(s)",
            details: "defined at gates.yaml:2:5"),
        GateVerdict(
            gate: "handshake.ready_ms.p50 regression: at most +10 %", scope: "board esp-01", kind: .regression,
            decision: .breached, measured: 260, baseline: 212.5,
            message: "esp-01: p50 260 ms vs 212.5 ms (+22.4 %) <&> against run A",
            details: "esp-01: BREACHED ...\ndefined at gates.yaml:3:5"),
        GateVerdict(
            gate: "ota.success_rate.first_try >= 0.992", scope: "profile esp-point", kind: .absolute,
            decision: .notEnoughData, message: "no board in profile esp-point measured ota.success_rate.first_try"),
    ]

    @Test("each gate is a testcase; a breach is a failure and not enough data a skip, in the suite and the totals")
    func rendering() throws {
        let xml = JUnitWriter().render(RunResult(SampleRuns.bench), gates: Self.verdicts)
        let plain = JUnitWriter().render(RunResult(SampleRuns.bench))
        // The run's checks, the bench's own two testcases (open, run), and the gates.
        let counts = RunResult(SampleRuns.bench).counts + BenchChecks(RunResult(SampleRuns.bench)).counts
        #expect(
            xml.contains(
                "<testsuites name=\"bench-a\" tests=\"\(counts.tests + 3)\" failures=\"\(counts.failed + 1)\" "
                    + "errors=\"\(counts.errors)\""))
        #expect(xml.contains("<testsuite name=\"gates\" tests=\"3\" failures=\"1\" errors=\"0\" skipped=\"1\""))
        #expect(xml.contains("<testcase name=\"handshake.ready_ms.p50 &lt;= 800\" classname=\"gates.rig\""))
        #expect(xml.contains("classname=\"gates.board.esp-01\""))
        #expect(xml.contains("classname=\"gates.profile.esp-point\""))
        #expect(xml.contains("<failure message=\"esp-01: p50 260 ms vs 212.5 ms (+22.4 %) &lt;&amp;&gt; against run A\" type=\"breached\">"))
        #expect(xml.contains("<skipped message=\"not enough data: no board in profile esp-point measured"))
        // Without verdicts the document is what it was.
        #expect(!plain.contains("name=\"gates\""))
        #expect(JUnitWriter().render(RunResult(SampleRuns.bench), gates: []) == plain)
    }

    @Test("the document with gates validates against junit-10.xsd")
    func validates() throws {
        let verdict = try XMLLint.validate(
            JUnitWriter().render(RunResult(SampleRuns.bench), gates: Self.verdicts), schema: Fixtures.schema)
        #expect(verdict.valid, "xmllint rejected the document:\n\(verdict.output)")
    }
}
