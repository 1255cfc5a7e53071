import BLECore
import Foundation
import Testing

@testable import Reports

@Suite("RunLog: recording and JSON Lines")
struct RunLogTests {
    @Test("every kind of event survives JSON Lines unchanged")
    func roundTrip() throws {
        let log = RunLog(SampleRuns.bench)
        let text = try log.jsonLines()
        let decoded = try RunLog(jsonLines: text)
        #expect(decoded.events == SampleRuns.bench)
        let kinds = Set(SampleRuns.bench.map(\.name))
        #expect(kinds == Set(RunEvent.Kind.allCases.map(\.rawValue)))
    }

    @Test("nasty strings, NaN and infinities survive, and every event is one line")
    func nastyRoundTrip() throws {
        var events = SampleRuns.nasty
        events.append(
            .testFinished(
                .init(
                    board: "b", suite: "s", test: "t", started: .origin, duration: .zero, outcome: .passed,
                    measurements: [
                        .init(metric: "x", statistic: .max, value: .infinity, unit: .count, definition: "∞"),
                        .init(metric: "y", statistic: .min, value: -.infinity, unit: .count, definition: "-∞"),
                    ])))
        let text = try RunLog(events).jsonLines()
        #expect(text.utf8.count(where: { $0 == UInt8(ascii: "\n") }) == events.count)
        let decoded = try RunLog(jsonLines: text)
        // NaN is not equal to itself, so compare the re-encoded text rather than the events.
        #expect(try decoded.jsonLines() == text)
        #expect(decoded.events.last == events.last)
        guard case .testFinished(let failed) = decoded.events[5] else {
            Issue.record("event 5 should be a testFinished, got \(decoded.events[5].name)")
            return
        }
        #expect(failed.measurements.first?.value.isNaN == true)
        #expect(failed.suite == SampleRuns.nastyStrings[1])
    }

    @Test("an event is one flat JSON object named by its event field")
    func lineShape() throws {
        let line = try RunEvent.log(
            .init(
                board: "esp-01", at: .init(sinceOrigin: .milliseconds(1_500)), level: .info, source: "console",
                message: "hi")
        ).jsonLine()
        #expect(
            line == #"{"at":"1.5","board":"esp-01","event":"log","level":"info","message":"hi","source":"console"}"#)
    }

    @Test("blank lines, CRLF endings and a missing final newline are accepted")
    func tolerantFraming() throws {
        let lines = try SampleRuns.bench.map { try $0.jsonLine() }
        let text = "\n" + lines.joined(separator: "\r\n") + "\r\n\n  \n" + "\t"
        #expect(try RunLog(jsonLines: text).events == SampleRuns.bench)
        #expect(try RunLog(jsonLines: lines.joined(separator: "\n")).events == SampleRuns.bench)
    }

    @Test("a U+2028 line separator inside a message does not split the line")
    func unicodeLineSeparators() throws {
        let event = RunEvent.log(
            .init(board: "b", at: .origin, level: .info, source: "s", message: "a\u{2028}b\u{85}c"))
        #expect(try RunLog(jsonLines: RunLog([event]).jsonLines()).events == [event])
    }

    static let malformed: [(text: String, line: Int, mentions: String)] = [
        ("{", 1, "run log line 1"),
        ("[]", 1, "run log line 1"),
        (#"{"event":"teleported","board":"b"}"#, 1, "unknown event \"teleported\""),
        (#"{"board":"b"}"#, 1, "missing field \"event\""),
        (#"{"event":"log","board":"b","at":"1.5","level":"info","source":"s"}"#, 1, "missing field \"message\""),
        (
            #"{"event":"log","board":"b","at":"1,5","level":"info","source":"s","message":"m"}"#, 1,
            "\"1,5\" is not a rig time"
        ),
        (#"{"event":"log","board":7,"at":"1","level":"info","source":"s","message":"m"}"#, 1, "at board"),
        (
            "\n" + #"{"event":"testFinished","board":"b","suite":"s","test":"t","started":"0","duration":"1","#
                + #""outcome":{"status":"passd"}}"#,
            2, "at outcome.status"
        ),
        (
            #"{"event":"runFinished","at":"1","wallDuration":"2"}"# + "\n" + #"{"event":"runFinished","at":"1"}"#, 2,
            "missing field \"wallDuration\""
        ),
    ]

    @Test("a malformed line is an error naming the line and the problem", arguments: malformed)
    func malformedLines(text: String, line: Int, mentions: String) {
        #expect {
            _ = try RunLog(jsonLines: text)
        } throws: { error in
            guard let error = error as? RunLogError else { return false }
            return error.line == line && error.description.contains(mentions)
        }
    }

    @Test("invalid UTF-8 is an error, not a trap")
    func invalidUTF8() {
        #expect(throws: RunLogError.self) {
            _ = try RunLog(jsonLines: Data([0x7B, 0x22, 0xFF, 0xFE, 0x22, 0x7D, 0x0A]))
        }
    }

    @Test("boards appending concurrently lose nothing and keep their own order")
    func concurrentAppends() async {
        let log = RunLog()
        await withTaskGroup(of: Void.self) { group in
            for board in 0..<8 {
                group.addTask {
                    for step in 0..<250 {
                        log.append(
                            .log(.init(board: "b\(board)", at: .origin, level: .debug, source: "t", message: "\(step)"))
                        )
                    }
                }
            }
        }
        #expect(log.count == 2_000)
        for board in 0..<8 {
            let messages = log.events.compactMap { event -> String? in
                guard case .log(let line) = event, line.board == "b\(board)" else { return nil }
                return line.message
            }
            #expect(messages == (0..<250).map(String.init))
        }
    }
}
