import BLECore
import Foundation
@testable import Reports
import Testing

@Suite("JUnit for verdicts: wall time, classes, attempts, the bench, the plan")
struct JUnitVerdictTests {
    static let runs: [(String, [RunEvent])] = [
        ("verdicts", SampleRuns.verdicts), ("bench did not open", SampleRuns.benchDidNotOpen),
        ("bench failed mid-run", SampleRuns.benchFailedMidRun),
    ]

    @Test("every run validates against junit-10.xsd, and each testcase against Surefire's 3.0 schema", arguments: runs)
    func validatesAgainstBothSchemas(name: String, events: [RunEvent]) throws {
        let xml = JUnitWriter().render(RunResult(events))
        let junit = try XMLLint.validate(xml, schema: Fixtures.schema)
        #expect(junit.valid, "\(name) against junit-10.xsd: \(junit.output)")
        let surefire = try XMLLint.validateTestcasesAgainstSurefire(xml)
        #expect(surefire.valid, "\(name) against surefire-test-report-3.0.xsd: \(surefire.output)")
    }

    @Test("the Surefire check has teeth: a flakyFailure without its stackTrace is refused")
    func surefireCheckHasTeeth() throws {
        let xml = JUnitWriter().render(RunResult(SampleRuns.verdicts))
        let broken = xml.replacingOccurrences(of: "<stackTrace>", with: "<trace>")
            .replacingOccurrences(of: "</stackTrace>", with: "</trace>")
        #expect(try !XMLLint.validateTestcasesAgainstSurefire(broken).valid)
    }

    @Test("testcase time is wall-clock seconds; bench time is a property and a line of system-out")
    func wallTime() throws {
        let xml = JUnitWriter().render(RunResult(SampleRuns.verdicts))
        #expect(xml.contains("<testcase name=\"connect to ready\" classname=\"esp-01.handshake\" time=\"2.012\">"))
        #expect(!xml.contains("time=\"619521"))
        #expect(xml.contains("bench time 619521.032 s (virtual farm)"))
        #expect(xml.contains("<property name=\"bench_time_s\" value=\"0.400\"/>"))
        // Both attempts of the flaky check count towards its wall time.
        #expect(xml.contains("<testcase name=\"clean update\" classname=\"esp-01.ota\" time=\"0.085\">"))
        #expect(xml.contains("<testsuites name=\"virtual-farm\" tests=\"8\" failures=\"1\" errors=\"0\" time=\"2.345\">"))
    }

    @Test("properties are <metric>.<statistic> without spaces, each once, rounded to 4 significant digits")
    func properties() throws {
        let xml = JUnitWriter().render(RunResult(SampleRuns.verdicts))
        let names = try XMLLint.xpath("//testsuite[@name='esp-01']/properties/property/@name", in: xml)
            .split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(!names.isEmpty)
        #expect(Set(names).count == names.count, "repeated: \(names)")
        #expect(names.allSatisfy { !$0.dropFirst(6).contains(" ") }, "\(names)")
        #expect(xml.contains("<property name=\"handshake.connect_ms.p50\" value=\"35.81\"/>"))
        #expect(xml.contains("<property name=\"handshake.connect_ms.p95\" value=\"52.12\"/>"))
        #expect(xml.contains("<property name=\"handshake.connect_ms.count\" value=\"200\"/>"))
        #expect(xml.contains("<property name=\"handshake.connect_ms.unit\" value=\"ms\"/>"))
        #expect(xml.contains("<property name=\"ota.throughput_kBps.value\" value=\"41.23\"/>"))
        #expect(xml.contains("<property name=\"link.drop_rate.reason_0x08\" value=\"2.4\"/>"))
        #expect(!xml.contains("handshake.connect to ready"))
    }

    @Test("a non-pass says its class in type and message; earlier attempts are flaky or rerun elements")
    func classesAndAttempts() throws {
        let xml = JUnitWriter().render(RunResult(SampleRuns.verdicts))
        let soak = try XMLLint.xpath("//testcase[@classname='esp-01.soak']", in: xml)
        #expect(soak.contains("<failure message=\"test failure: esp-01 soak.drop rate: link.drop_rate value 3.1 /h"))
        #expect(soak.contains("type=\"test\">13 drops in 4.2 h</failure>"))
        #expect(soak.contains("<rerunFailure message=\"test failure: esp-01 soak.drop rate: link.drop_rate value 2.9"))
        #expect(soak.contains("<stackTrace>12 drops in 4.2 h</stackTrace>") == false)
        #expect(soak.contains("<stackTrace>12 drops in 4.1 h</stackTrace>"))
        #expect(soak.contains("attempt 1 of 2: started at +0.100000s"))
        let ota = try XMLLint.xpath("//testcase[@classname='esp-01.ota']", in: xml)
        #expect(ota.contains("<flakyError message=\"infrastructure failure: esp-01 ota.clean update: controller"))
        #expect(ota.contains("type=\"infrastructure\""))
        #expect(!ota.contains("<error"))
        #expect(!ota.contains("rerun"))
    }

    @Test("a check that does not apply is no testcase; its board's counts leave it out")
    func notApplicable() throws {
        let result = RunResult(SampleRuns.verdicts)
        let nano = try #require(result.boards.first { $0.id == "nano-01" })
        #expect(!nano.tests.contains { $0.suite == "ota" })
        #expect(nano.notApplicable == [.init(suite: "ota", name: "clean update", reason: "nano33-ble-sense boards have no OTA")])
        let xml = JUnitWriter().render(result)
        #expect(!xml.contains("nano-01.ota"))
    }

    @Test("planned checks without a result are skipped with why, so a stopped run has the whole plan")
    func planFilledIn() throws {
        let result = RunResult(SampleRuns.verdicts)
        let nano = try #require(result.boards.first { $0.id == "nano-01" })
        let soak = try #require(nano.tests.first { $0.suite == "soak" })
        #expect(soak.outcome == .skipped(reason: "not run: the run log has no result for it"))
        let failed = RunResult(SampleRuns.benchFailedMidRun)
        let testcases = failed.boards.flatMap { $0.tests.map { "\($0.board) \($0.suite).\($0.name)" } }
        let planned = SampleRuns.plannedBoards.flatMap { b in b.checks.map { "\(b.board) \($0.suite).\($0.test)" } }
        #expect(Set(testcases) == Set(planned))
        let skipped = try #require(failed.boards[1].tests.first)
        #expect(skipped.outcome == .skipped(reason: "not run: the bench failed: rootcanal (pid 4242) exited"))
    }

    @Test("a bench that did not open is a red error testcase bench.open, and every planned check is skipped")
    func benchDidNotOpen() throws {
        let xml = JUnitWriter().render(RunResult(SampleRuns.benchDidNotOpen))
        let open = try XMLLint.xpath("//testcase[@classname='bench' and @name='open']/error", in: xml)
        #expect(open.contains("type=\"infrastructure\""))
        #expect(open.contains("message=\"infrastructure failure: bench the bench did not open: the bench failed: "
            + "transport tcp:127.0.0.1:1: connection refused\""))
        #expect(xml.contains("errors=\"1\""))
        #expect(xml.contains("<testsuites name=\"virtual-farm\" tests=\"8\" failures=\"0\" errors=\"1\""))
        let run = try XMLLint.xpath("//testcase[@classname='bench' and @name='run']/skipped/@message", in: xml)
        #expect(run.contains("the bench did not open"))
    }

    @Test("a bench that failed during the run is a red error testcase bench.run")
    func benchFailedMidRun() throws {
        let xml = JUnitWriter().render(RunResult(SampleRuns.benchFailedMidRun))
        #expect(try XMLLint.xpath("//testcase[@classname='bench' and @name='open']", in: xml).contains("/>"))
        let run = try XMLLint.xpath("//testcase[@classname='bench' and @name='run']/error/@message", in: xml)
        #expect(run.contains("the bench failed during the run: rootcanal (pid 4242) exited"))
    }

    @Test("a log without any board or end is red too")
    func emptyLogIsRed() throws {
        let xml = JUnitWriter().render(RunResult([RunEvent]()))
        #expect(xml.contains("<error message=\"infrastructure failure: bench no board was tested\""))
    }

    @Test("attachments are [[ATTACHMENT|path]] lines in the board's system-out")
    func attachments() throws {
        let xml = JUnitWriter().render(RunResult(SampleRuns.verdicts))
        let out = try XMLLint.xpath("//testsuite[@name='esp-01']/system-out", in: xml)
        #expect(out.contains("[[ATTACHMENT|captures/esp-01.btsnoop]]\n[[ATTACHMENT|console/esp-01.log]]"))
    }

    @Test(
        "numbers keep 4 significant digits without float noise",
        arguments: [
            (0.35808767599999997, "0.3581"), (212.449, "212.4"), (1234.56, "1235"), (200, "200"),
            (0.000012345, "0.00001235"), (-3.14159, "-3.142"), (99.99999, "100"), (Double.nan, "NaN"),
        ])
    func significant(value: Double, text: String) {
        #expect(NumberText.significant(value) == text)
    }
}
