import BLECore
import Testing

@testable import Reports

@Suite("RunResult: folding a log into per-board results")
struct RunResultFoldTests {
    let result = RunResult(SampleRuns.bench)

    @Test("run identity comes from runStarted and runFinished")
    func runIdentity() {
        #expect(result.run == SampleRuns.runStarted)
        #expect(result.finished?.wallDuration == .milliseconds(1_234))
    }

    @Test("boards appear in the order of their first event, with profile and identity")
    func boards() {
        #expect(result.boards.map(\.id) == ["esp-01", "esp-02"])
        #expect(result.boards[0].profile == "esp-point")
        #expect(result.boards[0].identity.map(\.key) == ["address", "name", "firmware"])
        #expect(result.boards[1].finished == SampleRuns.at(3_700))
        #expect(result.boards[0].finished == nil)
    }

    @Test("checks keep their start order and take the outcome of their testFinished")
    func checks() {
        let esp01 = result.boards[0].tests
        #expect(esp01.map { "\($0.suite).\($0.name)" } == ["handshake.ready", "ota.resume", "soak.hold"])
        #expect(esp01[0].outcome == .passed)
        #expect(esp01[0].duration == .milliseconds(1_250))
        #expect(esp01[0].measurements.count == 4)
        #expect(esp01[1].outcome == .skipped(reason: "profile esp-point has no OTA service in this firmware"))
        let esp02 = result.boards[1].tests
        #expect(
            esp02.map(\.outcome) == [
                .failed(
                    message: "handshake.ready_ms p95 212.4 ms > 150 ms", details: "200 connections; 14 above 150 ms"),
                .error(message: "lease on esp-02 lost", details: "serial port /dev/ttyUSB1 disappeared"),
            ])
    }

    @Test("a check that never finished becomes an error running to the board's last event")
    func unfinishedCheck() throws {
        let hold = try #require(result.boards[0].tests.last)
        guard case .error(let message, _) = hold.outcome else {
            Issue.record("expected an error outcome, got \(hold.outcome)")
            return
        }
        #expect(message == "the check started at +3.000000s and the log ended before it reported a result")
        #expect(hold.duration == .milliseconds(600))
    }

    @Test("counts add up per board and for the run")
    func counts() {
        #expect(result.boards[0].counts == TestCounts(passed: 1, failed: 0, errors: 1, skipped: 1))
        #expect(result.boards[1].counts == TestCounts(passed: 0, failed: 1, errors: 1, skipped: 0))
        #expect(result.counts.tests == 5)
    }

    @Test("log lines and transitions stay interleaved in emission order")
    func timeline() {
        let entries = result.boards[0].timeline.map { entry in
            switch entry {
            case .log(let line): "log \(line.message)"
            case .transition(let transition): "state \(transition.to)"
            }
        }
        #expect(entries == ["state booting", "log ESP-IDF v5.1 boot\r\n", "state ready", "log link lost\nreason 0x08"])
        #expect(result.boards[0].logs.count == 2)
        #expect(result.boards[0].transitions.count == 2)
        #expect(result.boards[1].attachments.map(\.path) == ["console/esp-02.log"])
    }

    @Test("a check run twice gives two results, each paired with its own start")
    func repeatedCheck() {
        let at = SampleRuns.at
        let result = RunResult([
            .testStarted(.init(board: "b", suite: "s", test: "t", at: at(0))),
            .testStarted(.init(board: "b", suite: "s", test: "t", at: at(10))),
            .testStarted(.init(board: "b", suite: "s", test: "u", at: at(15))),
            .testFinished(
                .init(board: "b", suite: "s", test: "t", started: at(0), duration: .milliseconds(5), outcome: .passed)),
            .testFinished(
                .init(board: "b", suite: "s", test: "u", started: at(15), duration: .milliseconds(1), outcome: .passed)
            ),
            .testFinished(
                .init(
                    board: "b", suite: "s", test: "t", started: at(10), duration: .milliseconds(7),
                    outcome: .skipped(reason: "second"))),
            .testFinished(
                .init(board: "b", suite: "s", test: "v", started: at(30), duration: .milliseconds(1), outcome: .passed)
            ),
        ])
        let tests = result.boards[0].tests
        #expect(tests.map(\.name) == ["t", "t", "u", "v"])
        #expect(tests.map(\.duration) == [.milliseconds(5), .milliseconds(7), .milliseconds(1), .milliseconds(1)])
        #expect(tests[1].outcome == .skipped(reason: "second"))
    }

    @Test("events before boardStarted still make the board; the first runStarted counts")
    func partialLogs() {
        let late = RunEvent.RunStarted(
            runID: "other", rig: "r", rigFile: "f", seed: nil, radio: "virtual", wallStart: .distantPast, host: "h")
        let result = RunResult(SampleRuns.headless + [.runStarted(SampleRuns.runStarted), .runStarted(late)])
        #expect(result.run?.runID == SampleRuns.runStarted.runID)
        #expect(result.boards.map(\.id) == ["nano-01"])
        #expect(result.boards[0].profile == nil)
        #expect(result.boards[0].elapsed == .milliseconds(30))
        #expect(RunResult([]).boards.isEmpty)
    }
}
