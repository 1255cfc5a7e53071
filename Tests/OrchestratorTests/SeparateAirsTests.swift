import BLECore
import BenchCore
import Benches
import Foundation
import Reports
import Testing

@testable import Orchestrator

/// `virtual: {airs: per_radio}`: each radio's air is simulated on a thread of its own, and the run does not depend
/// on how many run at once.
@Suite("Separate airs on the virtual farm")
struct SeparateAirsTests {
    /// Three radios, two boards pinned to each.
    static let rig = """
        rig: three-airs
        radios:
          - {id: r1, kind: virtual, max_links: 1}
          - {id: r2, kind: virtual, max_links: 1}
          - {id: r3, kind: virtual, max_links: 1}
        boards:
          - {id: esp-01, profile: esp-point, radio: r1}
          - {id: nano-01, profile: nano33-ble-sense, radio: r1}
          - {id: hrm-01, profile: hrm, radio: r2}
          - {id: esp-02, profile: esp-point, radio: r2}
          - {id: nano-02, profile: nano33-ble-sense, radio: r3}
          - {id: hrm-02, profile: hrm, radio: r3}
        virtual: {seed: 11, airs: per_radio}
        suites:
          - discovery
          - handshake: {connections: 3}
          - commands: {repetitions: 2}
        """

    static func run(parallelAirs: Int?) async throws -> CampaignResult {
        let path = try RigTesting.temporaryFile(Array(rig.utf8))
        let campaign = try Campaign(rigFile: path, seed: nil, benches: BenchBuilder(parallelAirs: parallelAirs))
        return try await campaign.run(RunOptions(outputRoot: CampaignTests.outputRoot()))
    }

    /// Each board's events as they would read on any thread: checks with their numbers, transitions, log lines.
    static func perBoard(_ result: CampaignResult) -> [String: [String]] {
        var boards: [String: [String]] = [:]
        for board in result.result.boards {
            var lines = board.tests.map { test in
                "\(test.suite)/\(test.name) \(test.outcome) "
                    + test.measurements.map { "\($0.metric) \($0.statistic) \($0.value)" }.joined(separator: ", ")
            }
            lines += board.transitions.map { "\($0.from)→\($0.to) at \($0.at) (\($0.reason))" }
            boards[board.id] = lines
        }
        return boards
    }

    static func capture(_ result: CampaignResult, _ board: String) throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: "\(result.directory)/captures/\(board).btsnoop"))
    }

    @Test("one air at a time and all airs at once give the same checks, numbers, transitions and captures")
    func sameResultsOnOneThreadAndOnMany() async throws {
        let alone = try await Self.run(parallelAirs: 1)
        let together = try await Self.run(parallelAirs: nil)
        #expect(alone.result.failingCheckLines() == [])
        #expect(alone.status == .passed)
        let a = Self.perBoard(alone), b = Self.perBoard(together)
        #expect(a.count == 6)
        #expect(a.values.allSatisfy { $0.count > 5 })
        #expect(a == b)
        for board in a.keys.sorted() {
            #expect(try Self.capture(alone, board) == Self.capture(together, board), "\(board)'s capture differs")
        }
        // Boards report in the rig's order however the airs' events interleaved, so the files are the same too.
        let rigOrder = ["esp-01", "nano-01", "hrm-01", "esp-02", "nano-02", "hrm-02"]
        #expect(alone.result.boards.map(\.id) == rigOrder)
        #expect(together.result.boards.map(\.id) == rigOrder)
        #expect(try Self.junit(alone) == Self.junit(together))
    }

    /// The run's junit.xml without what differs from run to run: its id, its start, its rig file's (temporary)
    /// directory, and wall-clock times (JUnit's `time` is the wall's).
    static func junit(_ result: CampaignResult) throws -> String {
        var text = try String(contentsOfFile: "\(result.directory)/junit.xml", encoding: .utf8)
            .replacingOccurrences(of: result.runID, with: "RUN")
        let patterns = [
            #" (timestamp|time)="[^"]*""#, #"<property name="run\.wall_time_s" value="[^"]*"/>"#,
            #"blerig-rig-tests-[^/]*/"#,
        ]
        for pattern in patterns {
            text = text.replacingOccurrences(of: pattern, with: "", options: .regularExpression)
        }
        return text
    }

    @Test("every board must name its radio when each radio has an air of its own")
    func unpinnedBoardsAreRefused() throws {
        let yaml = Self.rig.replacingOccurrences(
            of: "{id: hrm-02, profile: hrm, radio: r3}", with: "{id: hrm-02, profile: hrm}")
        let path = try RigTesting.temporaryFile(Array(yaml.utf8))
        #expect {
            _ = try Campaign(rigFile: path, seed: nil, benches: BenchBuilder())
        } throws: { error in
            "\(error)".contains("board 'hrm-02' needs 'radio': with 'airs: per_radio'")
        }
    }
}
