import BLECore
import Foundation
import Testing

@testable import Reports

@Suite("RunResultBuilder: incremental folding and bounded timelines")
struct RunResultBuilderTests {
    static func logs(_ count: Int, board: String = "b", level: LogLevel = .info) -> [RunEvent] {
        (0..<count).map { index in
            .log(
                .init(
                    board: board, at: SampleRuns.at(index), level: level, source: "console", message: "\(index)"))
        }
    }

    static func fold(_ events: [RunEvent], limit: Int?) -> RunResult {
        var builder = RunResultBuilder(timelineLimit: limit)
        for event in events { builder.take(event) }
        return builder.result()
    }

    static func messages(_ board: BoardResult) -> [String] {
        board.timeline.map { entry in
            switch entry {
            case .log(let line): line.message
            case .transition(let transition): "→\(transition.to)"
            }
        }
    }

    static let sampleRuns: [(name: String, events: [RunEvent])] = [
        ("bench", SampleRuns.bench), ("nasty", SampleRuns.nasty), ("interrupted", SampleRuns.interrupted),
        ("board numbers", SampleRuns.boardNumbers), ("elided", SampleRuns.elided),
    ]

    @Test(
        "a limit no board reaches, with results taken after every event, gives what folding at once gives",
        arguments: sampleRuns)
    func roomyLimitMatchesFold(name: String, events: [RunEvent]) {
        var builder = RunResultBuilder(timelineLimit: 1_000)
        var rendered: [String] = []
        for event in events {
            builder.take(event)
            rendered.append(JUnitWriter().render(builder.result()))
        }
        // Compared as JUnit text: the nasty run carries NaN, which is not equal to itself.
        #expect(rendered.last == JUnitWriter().render(RunResult(events)), "\(name)")
        #expect(builder.result().boards.allSatisfy { $0.elidedTimelineEntries == 0 && $0.elisionIndex == 0 })
    }

    @Test(
        "a limit keeps the first L/4 entries and the last L - L/4, in order, and counts the rest",
        arguments: [
            // (limit, entries, kept head, kept tail)
            (8, 100, 0..<2, 94..<100),
            (10, 100, 0..<2, 92..<100),
            (8, 9, 0..<2, 3..<9),
            (8, 8, 0..<2, 2..<8),
            (8, 5, 0..<2, 2..<5),
            (3, 50, 0..<0, 47..<50),
            (1, 50, 0..<0, 49..<50),
            (0, 50, 0..<0, 50..<50),
            (-5, 50, 0..<0, 50..<50),
        ])
    func keptEntries(limit: Int, count: Int, head: Range<Int>, tail: Range<Int>) {
        let board = Self.fold(Self.logs(count), limit: limit).boards[0]
        #expect(Self.messages(board) == (Array(head) + Array(tail)).map(String.init))
        #expect(board.elidedTimelineEntries == count - head.count - tail.count)
        #expect(board.elisionIndex == (board.elidedTimelineEntries > 0 ? head.count : 0))
    }

    @Test("boards report in the plan's order whatever order their events came in; boards not planned follow")
    func planOrder() {
        let plan = ["a", "b", "c"].map { PlannedBoard(board: $0, profile: "hrm", checks: []) }
        var builder = RunResultBuilder()
        builder.take(
            .runStarted(
                .init(
                    runID: "r", rig: "rig", rigFile: "rig.yaml", seed: 1, radio: "virtual", wallStart: Date(),
                    host: "h", plan: plan)))
        for board in ["x", "c", "a"] {
            builder.take(.boardStarted(.init(board: board, profile: "hrm", identity: [], at: .origin)))
        }
        #expect(builder.result().boards.map(\.id) == ["a", "b", "c", "x"])
    }

    @Test("the kept timeline never exceeds the limit, however many entries come")
    func boundedAtEveryStep() {
        var buffer = TimelineBuffer(limit: 12)
        for (index, event) in Self.logs(5_000).enumerated() {
            guard case .log(let line) = event else { continue }
            buffer.append(.log(line))
            #expect(buffer.entries.count == min(index + 1, 12))
            #expect(buffer.elided == max(0, index + 1 - 12))
        }
    }

    @Test("log lines and transitions share one bound and keep their interleaving")
    func transitionsShareTheBound() {
        var events: [RunEvent] = []
        for index in 0..<20 {
            let at = SampleRuns.at(index)
            events.append(.log(.init(board: "b", at: at, level: .info, source: "s", message: "\(index)")))
            events.append(.transition(.init(board: "b", at: at, from: "x", to: "\(index)", reason: "")))
        }
        let board = Self.fold(events, limit: 4).boards[0]
        #expect(Self.messages(board) == ["0", "→18", "19", "→19"])
        #expect(board.elidedTimelineEntries == 36)
    }

    @Test("an entry reported after later ones takes its place by time; entries at one instant keep their order")
    func lateEntriesTakeTheirPlace() {
        let line = { (index: Int, message: String) -> RunEvent in
            .log(.init(board: "b", at: SampleRuns.at(index), level: .info, source: "s", message: message))
        }
        // The app central reports `connected` (stamped at link-up, 1) after the session-ready line (3).
        let events: [RunEvent] = [
            line(0, "a"), line(3, "ready"),
            .transition(.init(board: "b", at: SampleRuns.at(1), from: "x", to: "connected", reason: "")),
            line(3, "same instant, after"), line(4, "b"),
        ]
        #expect(
            Self.messages(Self.fold(events, limit: nil).boards[0]) == [
                "a", "→connected", "ready", "same instant, after", "b",
            ])
        // With a limit, the head and the tail each keep time order; the gap stays where it was.
        let many = (0..<10).map { line($0 * 2, "\($0 * 2)") } + [line(15, "late")] + [line(20, "20")]
        let board = Self.fold(many, limit: 8).boards[0]
        #expect(Self.messages(board) == ["0", "2", "12", "14", "late", "16", "18", "20"])
        #expect(board.elisionIndex == 2)
    }

    @Test("each board is bounded on its own")
    func boardsBoundedSeparately() {
        let events = Self.logs(100, board: "chatty") + Self.logs(3, board: "quiet")
        let result = Self.fold(events, limit: 8)
        #expect(result.boards.map(\.timeline.count) == [8, 3])
        #expect(result.boards.map(\.elidedTimelineEntries) == [92, 0])
    }

    @Test("warnings and errors among the left-out entries are counted")
    func elidedWarnings() {
        let board = Self.fold(SampleRuns.elided, limit: SampleRuns.elidedLimit).boards[0]
        // esp-01 has 2 transitions, 40 lines and 1 more transition: 43 entries, of which 2 + 6 are kept.
        #expect(board.elidedTimelineEntries == 35)
        // Left out: lines 1...35 (the first two entries are the boot transitions), with warnings at 5, 10, ...,
        // 35 and the error at 23.
        #expect(board.elidedWarnings == 8)
        #expect(
            Self.messages(board) == [
                "→booting", "→ready", "line 36", "line 37", "line 38", "line 39", "line 40", "→off",
            ])
        #expect(board.logs.count == 5)
        #expect(board.transitions.count == 3)
    }

    @Test("a result taken mid-run shows running checks as unfinished, and the builder carries on unchanged")
    func resultMidRun() {
        let events = SampleRuns.bench
        let split = events.firstIndex { if case .testFinished = $0 { true } else { false } }!
        var builder = RunResultBuilder()
        for event in events[..<split] { builder.take(event) }
        let early = builder.result()
        #expect(early.finished == nil)
        guard case .error(let message, _) = early.boards[0].tests[0].outcome else {
            Issue.record("a running check should show as unfinished, got \(early.boards[0].tests[0].outcome)")
            return
        }
        #expect(message.contains("the log ended before it reported a result"))
        for event in events[split...] { builder.take(event) }
        #expect(builder.result() == RunResult(events))
    }

    @Test("JUnit says once, where they were, how many entries and how many warnings were left out")
    func junitElisionLines() {
        let result = Self.fold(SampleRuns.elided, limit: SampleRuns.elidedLimit)
        let out = JUnitWriter.systemOut(result.boards[0]).split(separator: "\n").map(String.init)
        #expect(
            out == [
                "[+0.000000s] state    off → booting: power on",
                "[+0.005000s] state    booting → ready: boot banner seen",
                "… 35 timeline entries elided; the full log is in run.jsonl",
                "[+0.370000s] info     console: line 36",
                "[+0.380000s] info     console: line 37",
                "[+0.390000s] info     console: line 38",
                "[+0.400000s] info     console: line 39",
                "[+0.410000s] warning  console: line 40",
                "[+0.420000s] state    ready → off: power off",
                "[+0.430000s] finished in state off",
            ])
        #expect(
            JUnitWriter.systemErr(result.boards[0], run: result) == """
                … 8 warning or error lines elided; the full log is in run.jsonl
                [+0.410000s] warning  console: line 40

                """)
        #expect(!JUnitWriter.systemOut(result.boards[1]).contains("elided"))
    }

    @Test(
        "the elision lines say entry and line in the singular for one",
        arguments: [(5, "… 1 timeline entry elided"), (6, "… 2 timeline entries elided")])
    func singular(count: Int, line: String) {
        let result = Self.fold(Self.logs(count, level: .warning), limit: 4)
        #expect(JUnitWriter.systemOut(result.boards[0]).contains(line + "; the full log is in run.jsonl\n"))
        let warnings = count == 5 ? "… 1 warning or error line elided" : "… 2 warning or error lines elided"
        #expect(JUnitWriter.systemErr(result.boards[0], run: result).contains(warnings))
    }

    @Test("when nothing is kept after the gap, the elision lines come last")
    func elisionAtTheEnd() {
        let result = Self.fold(Self.logs(3, level: .error), limit: 0)
        #expect(
            JUnitWriter.systemOut(result.boards[0]) == "… 3 timeline entries elided; the full log is in run.jsonl\n")
        #expect(
            JUnitWriter.systemErr(result.boards[0], run: result)
                == "… 3 warning or error lines elided; the full log is in run.jsonl\n")
    }
}
