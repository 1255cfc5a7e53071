import BLECore
import Foundation
import Testing

@testable import Reports

#if canImport(FoundationXML)
    import FoundationXML
#endif

@Suite("JUnitWriter: golden output and schema validity")
struct JUnitWriterTests {
    let writer = JUnitWriter()

    @Test("a run with passes, a failure, a skip, errors and numbers renders as the golden file")
    func benchGolden() throws {
        try Fixtures.expectGolden(writer.render(RunLog(SampleRuns.bench)), named: "bench.junit.xml")
    }

    @Test("nasty strings render as the golden file")
    func nastyGolden() throws {
        try Fixtures.expectGolden(writer.render(RunResult(SampleRuns.nasty)), named: "nasty.junit.xml")
    }

    @Test("an interrupted run with interrupted checks renders as the golden file")
    func interruptedGolden() throws {
        try Fixtures.expectGolden(writer.render(RunResult(SampleRuns.interrupted)), named: "interrupted.junit.xml")
    }

    /// GitLab shows a testcase's system-out, not its suite's: a check that did not pass repeats what its board
    /// logged while it ran (the last 40 entries), a passing one does not.
    @Test("a failed check's system-out has its board's timeline while it ran, at most its last 40 entries")
    func failedCheckTimeline() throws {
        func at(_ ms: Int) -> RigInstant { RigInstant(sinceOrigin: .milliseconds(ms)) }
        var events: [RunEvent] = [.boardStarted(.init(board: "esp-01", profile: "esp-point", at: at(0)))]
        events.append(.log(.init(board: "esp-01", at: at(500), level: .info, source: "console", message: "before")))
        for index in 0..<50 {
            events.append(
                .log(
                    .init(
                        board: "esp-01", at: at(1000 + index * 10), level: .info, source: "central",
                        message: "m\(index)")))
        }
        events.append(
            .transition(.init(board: "esp-01", at: at(2000), from: "ready", to: "error", reason: "link lost")))
        events.append(
            .testFinished(
                .init(
                    board: "esp-01", suite: "ota", test: "clean update", started: at(1000), duration: .seconds(1),
                    outcome: .failed(message: "no ACK", details: "offset 4096"))))
        events.append(.log(.init(board: "esp-01", at: at(3500), level: .info, source: "central", message: "after")))
        events.append(
            .testFinished(
                .init(
                    board: "esp-01", suite: "handshake", test: "ready", started: at(3000), duration: .seconds(1),
                    outcome: .passed,
                    measurements: [
                        MeasuredValue(
                            metric: "handshake.ready_ms", statistic: .p50, value: 80, unit: .milliseconds,
                            definition: "d")
                    ])))
        let xml = writer.render(RunResult(events))
        let failed = try XMLLint.xpath("//testcase[@classname='esp-01.ota']/system-out/text()", in: xml)
        #expect(failed.contains("board esp-01 while this check ran (its last 40 entries; the 11 before them are in "))
        #expect(failed.contains("[+1.110000s] info     central: m11\n"))
        #expect(
            !failed.contains("central: m10\n") && !failed.contains("console: before")
                && !failed.contains("central: after"))
        #expect(failed.contains("[+2.000000s] state    ready → error: link lost"))
        let passed = try XMLLint.xpath("//testcase[@classname='esp-01.handshake']/system-out/text()", in: xml)
        #expect(passed.contains("handshake.ready_ms") && !passed.contains("while this check ran"))
    }

    static let logs: [(name: String, events: [RunEvent])] = [
        ("bench", SampleRuns.bench), ("nasty", SampleRuns.nasty), ("headless", SampleRuns.headless), ("empty", []),
        ("bench, events out of order", SampleRuns.bench.reversed()), ("interrupted", SampleRuns.interrupted),
        ("board numbers", SampleRuns.boardNumbers),
    ]

    @Test("the output validates against junit-10.xsd", arguments: logs)
    func validatesAgainstSchema(name: String, events: [RunEvent]) throws {
        let verdict = try XMLLint.validate(writer.render(RunResult(events)), schema: Fixtures.schema)
        #expect(verdict.valid, "\(name): xmllint rejected the document:\n\(verdict.output)")
    }

    @Test("a timeline folded with a limit renders as the golden file")
    func elidedGolden() throws {
        var builder = RunResultBuilder(timelineLimit: SampleRuns.elidedLimit)
        for event in SampleRuns.elided { builder.take(event) }
        try Fixtures.expectGolden(writer.render(builder.result()), named: "elided.junit.xml")
    }

    static let goldenFiles = [
        "bench.junit.xml", "nasty.junit.xml", "interrupted.junit.xml", "board-numbers.junit.xml", "elided.junit.xml",
    ]

    @Test("every golden file is itself valid against junit-10.xsd", arguments: goldenFiles)
    func goldenFilesValidate(name: String) throws {
        let url = Fixtures.directory.appendingPathComponent(name)
        let document = try String(contentsOf: url, encoding: .utf8)
        let verdict = try XMLLint.validate(document, schema: Fixtures.schema)
        #expect(verdict.valid, "\(name): xmllint rejected the golden file:\n\(verdict.output)")
    }

    @Test("the golden list names every golden file in Fixtures")
    func goldenListIsComplete() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Fixtures.directory.path)
        #expect(Set(names.filter { $0.hasSuffix(".junit.xml") }) == Set(Self.goldenFiles))
    }

    @Test(
        "the schema check rejects what the schema forbids (so a pass means something)",
        arguments: [
            // properties inside a testcase
            #"<testcase name="t"><properties/></testcase>"#,
            // a negative time
            #"<testcase name="t"/></testsuite><testsuite name="c" tests="0" failures="0" errors="0" time="-1.000">"#,
            // a testcase without a name
            #"<testcase classname="t"/>"#,
            // an attribute the schema does not know
            #"<testcase name="t" skipped="1"/>"#,
            // a control character XML 1.0 forbids
            "<system-out>\u{7}</system-out>",
        ])
    func schemaCheckHasTeeth(body: String) throws {
        let document =
            #"<testsuites><testsuite name="b" tests="1" failures="0" errors="0">"#
            + body + "</testsuite></testsuites>"
        let verdict = try XMLLint.validate(document, schema: Fixtures.schema)
        #expect(!verdict.valid, "xmllint accepted \(document)")
        let wellFormed =
            #"<testsuites><testsuite name="b" tests="1" failures="0" errors="0"><testcase name="t"/>"#
            + "</testsuite></testsuites>"
        #expect(try XMLLint.validate(wellFormed, schema: Fixtures.schema).valid)
    }

    @Test("the xmllint lookup finds nothing in a PATH without it, and the failure says what to install")
    func missingXMLLint() throws {
        let empty = Fixtures.temporaryFile("empty-bin")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: empty) }
        #expect(XMLLint.find(searchPath: empty.path) == nil)
        #expect(XMLLint.missingMessage.contains("libxml2-utils"))
        #expect(XMLLint.missingMessage.contains("make test"))
    }

    @Test("a failure says where and what: board, suite, check, measured against the limit")
    func failureMessage() throws {
        let xml = writer.render(RunResult(SampleRuns.bench))
        let message = "test failure: esp-02 handshake.ready: handshake.ready_ms p95 212.4 ms &gt; 150 ms"
        #expect(
            xml.contains(
                #"<failure message="\#(message)" type="test">200 connections; 14 above 150 ms</failure>"#))
        #expect(xml.contains(#"<error message="error: esp-02 ota.resume: lease on esp-02 lost" type="error">"#))
    }

    @Test("written files hold exactly the rendered document")
    func writesFile() throws {
        let url = Fixtures.temporaryFile("junit.xml")
        defer { try? FileManager.default.removeItem(at: url) }
        let result = RunResult(SampleRuns.bench)
        try writer.write(result, to: url)
        #expect(try String(contentsOf: url, encoding: .utf8) == writer.render(result))
    }

    #if canImport(FoundationXML)
        @Test("a parser finds every suite, case and property with the original strings made visible")
        func parsedStructure() throws {
            let document = try XMLDocument(
                xmlString: writer.render(RunResult(SampleRuns.nasty)), options: [.nodePreserveWhitespace])
            let suites = try #require(document.rootElement()).elements(forName: "testsuite")
            #expect(suites.map { $0.attribute(forName: "name")?.stringValue }.last == "bench")
            #expect(suites.count == 2)
            let suite = try #require(suites.first)
            let s = SampleRuns.nastyStrings.map(VisibleText.visible)
            #expect(suite.attribute(forName: "name")?.stringValue == "nasty-\(s[0])")
            let properties = suite.elements(forName: "properties").first?.elements(forName: "property") ?? []
            let byName = Dictionary(
                properties.map {
                    (
                        $0.attribute(forName: "name")?.stringValue ?? "",
                        $0.attribute(forName: "value")?.stringValue ?? ""
                    )
                },
                uniquingKeysWith: { first, _ in first })
            for string in s { #expect(byName[JUnitWriter.propertyName("board.\(string)")] == string) }
            #expect(byName[JUnitWriter.propertyName("m\(s[1]).\(s[3])")] == "NaN")
            let cases = suite.elements(forName: "testcase")
            #expect(
                cases.map { $0.attribute(forName: "classname")?.stringValue } == [
                    "nasty-\(s[0]).\(s[1])", "nasty-\(s[0]).\(s[4])", "nasty-\(s[0]).\(s[0])",
                ])
            #expect(cases[0].elements(forName: "failure").first?.stringValue == s[1])
            #expect(cases[2].elements(forName: "skipped").first?.attribute(forName: "message")?.stringValue == s[3])
            let out = suite.elements(forName: "system-out").first?.stringValue ?? ""
            #expect(out.contains(s[2]))
            #expect(out.contains("[[ATTACHMENT|\(s[2])]]"))
        }
    #endif
}
