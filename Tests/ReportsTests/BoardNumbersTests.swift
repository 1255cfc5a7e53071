import BLECore
import Foundation
import Testing

@testable import Reports

@Suite("Board-level numbers and final state: fold, JUnit and summary")
struct BoardNumbersTests {
    let result = RunResult(SampleRuns.boardNumbers)

    @Test("the fold keeps each board's final state and numbers from its boardFinished")
    func fold() {
        #expect(result.boards.map(\.finalState) == ["quarantined", "off"])
        #expect(result.boards[0].measurements.map(\.statistic) == [.value, .max, .count])
        #expect(result.boards[1].measurements.map(\.metric) == ["power.cycles"])
        #expect(RunResult(SampleRuns.bench).boards.allSatisfy { $0.finalState == nil && $0.measurements.isEmpty })
    }

    @Test("of several boardFinished events for a board, the last gives its finish, state and numbers")
    func lastBoardFinishedWins() {
        let result = RunResult([
            .boardFinished(.init(board: "b", at: SampleRuns.at(1), state: "off", measurements: [SampleRuns.connect])),
            .boardFinished(.init(board: "b", at: SampleRuns.at(2), state: "quarantined")),
        ])
        #expect(result.boards[0].finished == SampleRuns.at(2))
        #expect(result.boards[0].finalState == "quarantined")
        #expect(result.boards[0].measurements.isEmpty)
    }

    @Test("JUnit names board numbers <metric>.<statistic>, with the unit once, and the final state")
    func junitProperties() {
        let properties = JUnitWriter.properties(result.boards[0], run: result).map { "\($0.name)=\($0.value)" }
        #expect(
            Array(properties.drop { !$0.hasPrefix("board.final_state") }.prefix(6)) == [
                "board.final_state=quarantined",
                "schedule.link_wait_ms.unit=ms",
                "schedule.link_wait_ms.value=120",
                "schedule.link_wait_ms.max=310",
                "schedule.link_wait_ms.count=4",
                "handshake.ready_ms.unit=ms",
            ])
        #expect(properties.last == "handshake.ready_ms.p95=98.4")
        #expect(!JUnitWriter.properties(result.boards[1], run: result).contains { $0.name == "power.cycles.unit" })
    }

    @Test("the suite's system-out lists the final state and the board's numbers with their definitions")
    func junitSystemOut() {
        #expect(
            JUnitWriter.systemOut(result.boards[0]) == """
                [+0.010000s] state    off → ready: boot banner seen
                [+0.900000s] state    ready → quarantined: 3 failed connects
                [+1.000000s] finished in state quarantined
                schedule.link_wait_ms value 120 ms, max 310 ms, count 4 (check ready to start → a radio link free for it)

                """)
    }

    @Test("board numbers render as the golden file")
    func golden() throws {
        try Fixtures.expectGolden(JUnitWriter().render(result), named: "board-numbers.junit.xml")
    }

    @Test("the summary shows a board number only when a requested metric names it")
    func summaryKeyNumbers() {
        let requested = result.summaryTable(keyStatistics: [.max], metrics: ["schedule.link_wait_ms", "power.cycles"])
        let rows = requested.split(separator: "\n")
        #expect(rows[2].hasSuffix("| schedule.link_wait_ms max 310 ms"))
        #expect(rows[3].hasSuffix("| power.cycles count 2"))
        #expect(!result.summaryTable().contains("schedule.link_wait_ms"))
    }

    @Test("a check's metric wins over a board number of the same name")
    func checkMetricWins() {
        var board = result.boards[0]
        board.measurements.append(SampleRuns.ready(.p95, 1))
        #expect(
            RunResult.keyNumbers(board, keyStatistics: [.p95], metrics: ["handshake.ready_ms"])
                == ["handshake.ready_ms p95 98.4 ms"])
    }
}
