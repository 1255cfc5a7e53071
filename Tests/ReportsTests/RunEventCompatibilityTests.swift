import BLECore
import Testing

@testable import Reports

/// The run-log fields added for interrupted runs and board-level numbers: they survive JSON Lines, and logs
/// written before they existed still read, and are written back byte for byte.
@Suite("Run events: new fields round-trip, old lines still decode")
struct RunEventCompatibilityTests {
    static let newEvents: [RunEvent] = [
        .runFinished(.init(at: SampleRuns.at(30_000), wallDuration: .seconds(31), interruption: "SIGINT received")),
        .runFinished(
            .init(at: SampleRuns.at(1), wallDuration: .zero, interruption: "line\nbreak \u{7} and \"quotes\"")),
        .boardFinished(
            .init(
                board: "esp-01", at: SampleRuns.at(1_000), state: "quarantined",
                measurements: [SampleRuns.linkWait(.max, 310), SampleRuns.linkWait(.count, 4, unit: .count)])),
        .boardFinished(.init(board: "esp-02", at: SampleRuns.at(1_000), state: "off")),
        .boardFinished(.init(board: "esp-03", at: SampleRuns.at(1_000), measurements: [SampleRuns.connect])),
    ]

    @Test("new event fields survive JSON Lines unchanged", arguments: newEvents)
    func newFieldsRoundTrip(event: RunEvent) throws {
        let text = try RunLog([event]).jsonLines()
        #expect(try RunLog(jsonLines: text).events == [event])
        #expect(text.utf8.count(where: { $0 == UInt8(ascii: "\n") }) == 1)
    }

    @Test(
        "the interrupted, board-number and elided sample runs survive JSON Lines unchanged",
        arguments: [SampleRuns.interrupted, SampleRuns.boardNumbers, SampleRuns.elided])
    func sampleRunsRoundTrip(events: [RunEvent]) throws {
        #expect(try RunLog(jsonLines: RunLog(events).jsonLines()).events == events)
    }

    /// Lines as blerig wrote them before the new fields, with what they decode to.
    static let oldLines: [(line: String, event: RunEvent)] = [
        (
            #"{"at":"4","event":"runFinished","wallDuration":"1.234"}"#,
            .runFinished(.init(at: SampleRuns.at(4_000), wallDuration: .milliseconds(1_234)))
        )
    ]

    @Test(
        "a line written before the new fields decodes, with them empty, and is written back unchanged",
        arguments: oldLines)
    func oldLinesDecode(line: String, event: RunEvent) throws {
        let decoded = try RunEvent(jsonLine: line)
        #expect(decoded == event)
        #expect(try decoded.jsonLine() == line)
    }

    @Test("an interruption is written only when there is one")
    func interruptionOnlyWhenSet() throws {
        let plain = try RunEvent.runFinished(.init(at: .origin, wallDuration: .zero)).jsonLine()
        #expect(!plain.contains("interruption"))
        let stopped = try RunEvent.runFinished(
            .init(at: .origin, wallDuration: .zero, interruption: "--timeout 30 s reached")
        ).jsonLine()
        #expect(
            stopped == #"{"at":"0","event":"runFinished","interruption":"--timeout 30 s reached","wallDuration":"0"}"#)
    }
}
