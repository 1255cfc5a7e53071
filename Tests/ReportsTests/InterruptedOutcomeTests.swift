import BLECore
import Foundation
import Testing

@testable import Reports

#if canImport(FoundationXML)
    import FoundationXML
#endif

@Suite("Interrupted checks: log encoding, counts, JUnit and text")
struct InterruptedOutcomeTests {
    let result = RunResult(SampleRuns.interrupted)

    @Test("an interrupted outcome is written as status interrupted with its reason, and reads back")
    func encoding() throws {
        let event = RunEvent.testFinished(
            .init(
                board: "b", suite: "s", test: "t", started: .origin, duration: .seconds(2),
                outcome: .interrupted(reason: "SIGINT received")))
        let line = try event.jsonLine()
        #expect(line.contains(#""outcome":{"reason":"SIGINT received","status":"interrupted"}"#), "\(line)")
        #expect(try RunEvent(jsonLine: line) == event)
    }

    @Test("an interrupted outcome without its reason is rejected, naming the field")
    func missingReason() {
        let line =
            #"{"event":"testFinished","board":"b","suite":"s","test":"t","started":"0","duration":"1","#
            + #""outcome":{"status":"interrupted"}}"#
        #expect {
            _ = try RunLog(jsonLines: line)
        } throws: { error in
            (error as? RunLogError)?.description.contains("missing field \"reason\"") == true
        }
    }

    @Test(
        "each outcome counts once in its own column; interrupted also counts as an error",
        arguments: [
            (TestOutcome.passed, TestCounts(passed: 1)),
            (.failed(message: "m", details: ""), TestCounts(failed: 1)),
            (.error(message: "m", details: ""), TestCounts(errors: 1)),
            (.skipped(reason: "r"), TestCounts(skipped: 1)),
            (.interrupted(reason: "r"), TestCounts(errors: 1, interrupted: 1)),
        ])
    func counting(outcome: TestOutcome, counts: TestCounts) {
        #expect(TestCounts(outcome) == counts)
        #expect(TestCounts(outcome).tests == 1)
    }

    @Test("board and run counts keep interrupted checks inside errors")
    func runCounts() {
        #expect(result.boards[0].counts == TestCounts(passed: 1, errors: 1, interrupted: 1))
        #expect(result.counts == TestCounts(passed: 1, errors: 3, interrupted: 3))
        #expect(result.counts.tests == 4)
    }

    @Test("JUnit writes an interrupted check as an error of type interrupted, counted in errors")
    func junitError() throws {
        let xml = JUnitWriter().render(result)
        #expect(xml.contains(#"<testsuites name="bench-a" tests="6" failures="0" errors="3" time="#))
        #expect(xml.contains(#"<testsuite name="esp-01" tests="2" failures="0" errors="1" skipped="0""#))
        #expect(
            xml.contains(
                #"<error message="interrupted: SIGINT received" type="interrupted">esp-01 soak.hold started at "#
                    + "+0.600000s and was stopped before it reached a verdict"))
        #expect(xml.contains(#"<error message="interrupted: check timeout 20 s reached" type="interrupted">"#))
        let verdict = try XMLLint.validate(xml, schema: Fixtures.schema)
        #expect(verdict.valid, "xmllint rejected the document:\n\(verdict.output)")
    }

    @Test("a check still running when an interrupted run ends is interrupted for the run's reason")
    func unfinishedInInterruptedRun() throws {
        let stream = try #require(result.boards[1].tests.last)
        #expect(stream.name == "stream")
        #expect(stream.outcome == .interrupted(reason: "SIGINT received"))
        #expect(stream.duration == .milliseconds(9_400))
        #expect(result.interruption == "SIGINT received")
        #expect(RunResult(SampleRuns.bench).interruption == nil)
    }

    #if canImport(FoundationXML)
        @Test("every board's suite says the run was interrupted, as a property and first in system-err")
        func junitRunInterruption() throws {
            let document = try XMLDocument(xmlString: JUnitWriter().render(result), options: [.nodePreserveWhitespace])
            let suites = try #require(document.rootElement()).elements(forName: "testsuite")
                .filter { $0.attribute(forName: "name")?.stringValue != "bench" }
            #expect(suites.count == 2)
            for suite in suites {
                let properties = suite.elements(forName: "properties").first?.elements(forName: "property") ?? []
                let interrupted = properties.filter { $0.attribute(forName: "name")?.stringValue == "run.interrupted" }
                #expect(interrupted.map { $0.attribute(forName: "value")?.stringValue } == ["SIGINT received"])
                let err = suite.elements(forName: "system-err").first?.stringValue ?? ""
                #expect(err.hasPrefix("run interrupted: SIGINT received\n"), "\(err)")
            }
        }
    #endif

    @Test("a run that ran to its end says nothing about an interruption")
    func junitUninterrupted() {
        let bench = JUnitWriter().render(RunResult(SampleRuns.bench))
        #expect(!bench.contains("run.interrupted"))
        #expect(!bench.contains("run interrupted"))
    }

    @Test("failing-check lines mark interrupted checks in capitals")
    func failingLines() {
        #expect(
            result.failingCheckLines() == [
                "esp-01 soak.hold: INTERRUPTED: SIGINT received",
                "esp-02 ota.upload: INTERRUPTED: check timeout 20 s reached",
                "esp-02 notifications.stream: INTERRUPTED: SIGINT received",
            ])
        #expect(result.boards[0].tests[1].headline == "esp-01 soak.hold: interrupted: SIGINT received")
    }

    @Test("the summary table gains an interrupted column only when a check was interrupted")
    func summaryColumn() {
        #expect(
            result.summaryTable(metrics: ["handshake.ready_ms"], width: 1000) == """
                board  | profile   | passed | failed | errors | interrupted | skipped | key numbers
                -------+-----------+--------+--------+--------+-------------+---------+-------------------------------
                esp-01 | esp-point |      1 |      0 |      1 |           1 |       0 | handshake.ready_ms p95 98.4 ms
                esp-02 | esp-point |      0 |      0 |      2 |           2 |       0 |
                -------+-----------+--------+--------+--------+-------------+---------+-------------------------------
                total  |           |      1 |      0 |      3 |           3 |       0 |

                """)
        #expect(!RunResult(SampleRuns.bench).summaryTable().contains("interrupted"))
    }
}
