import BLECore
import Benches
import Foundation
import Reports
import Testing

@testable import Orchestrator

/// Boards scheduled onto radios with link limits: work beyond a radio's links waits instead of failing, the report
/// says how long each board waited, and more radios make a big rig faster.
@Suite("Radios with link limits")
struct RadioSchedulingTests {
    static func rig(boards: Int, radios: Int, maxLinks: Int, pin: [Int: Int] = [:]) -> String {
        var yaml = "rig: scheduling\nradios:\n"
        for radio in 1...radios { yaml += "  - {id: r\(radio), kind: virtual, max_links: \(maxLinks)}\n" }
        yaml += "boards:\n"
        for board in 0..<boards {
            yaml +=
                "  - {id: n\(board), profile: nano33-ble-sense" + (pin[board].map { ", radio: r\($0)" } ?? "") + "}\n"
        }
        yaml += "virtual: {seed: 5}\nsuites: [discovery, {handshake: {connections: 2}}, {commands: {repetitions: 1}}]\n"
        return yaml
    }

    static func waits(_ result: CampaignResult) -> [String: Double] {
        var waits: [String: Double] = [:]
        for board in result.result.boards {
            waits[board.id] = board.measurements.first { $0.metric == "schedule.link_wait_ms" }?.value
        }
        return waits
    }

    @Test("twelve boards on a radio of four links all pass; eight of them waited, and the report says how long")
    func queuedNotFailed() async throws {
        let result = try await CampaignTests.run(Self.rig(boards: 12, radios: 1, maxLinks: 4))
        #expect(result.status == .passed)
        let waits = Self.waits(result)
        #expect(waits.count == 12)
        #expect(waits.values.filter { $0 == 0 }.count == 4)
        #expect(waits.values.filter { $0 > 0 }.count == 8)
        let queued = result.result.boards.filter { $0.transitions.contains { $0.to == "queued" } }
        #expect(queued.count == 8)
        try XMLSchema.expectValid("\(result.directory)/junit.xml")
        let xml = try String(contentsOfFile: "\(result.directory)/junit.xml", encoding: .utf8)
        #expect(xml.contains("<property name=\"schedule.link_wait_ms.value\""))
    }

    @Test("a board pinned to a radio uses that radio")
    func pinnedBoard() async throws {
        let result = try await CampaignTests.run(Self.rig(boards: 3, radios: 2, maxLinks: 1, pin: [0: 2, 1: 2]))
        #expect(result.status == .passed)
        let lines = result.result.boards.flatMap { board in board.logs.map { "\(board.id): \($0.message)" } }
        #expect(lines.contains { $0.hasPrefix("n0: holds a link on radio r2") })
        #expect(lines.contains { $0.hasPrefix("n1: holds a link on radio r2") })
        #expect(lines.contains { $0.hasPrefix("n2: holds a link on radio r1") })
        // n0 and n1 share r2's single link; n2 has r1 to itself.
        let waits = Self.waits(result)
        #expect((waits["n0"] ?? 0) == 0 || (waits["n1"] ?? 0) == 0)
        #expect((waits["n0"] ?? 0) + (waits["n1"] ?? 0) > 0)
        #expect(waits["n2"] == 0)
    }

    @Test("more boards than links take longer on one radio and not on several")
    func radiosShareTheWork() async throws {
        let few = try await CampaignTests.run(Self.rig(boards: 4, radios: 1, maxLinks: 4))
        let many = try await CampaignTests.run(Self.rig(boards: 32, radios: 1, maxLinks: 4))
        let spread = try await CampaignTests.run(Self.rig(boards: 32, radios: 8, maxLinks: 4))
        for result in [few, many, spread] { #expect(result.status == .passed) }
        #expect(many.benchTime > few.benchTime * 4)
        #expect(spread.benchTime < few.benchTime * 2)
    }
}
