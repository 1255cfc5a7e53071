import BLECore
import DeviceProfiles
import Testing

@testable import VirtualFarm

/// The air simulates an advertising event only when someone can hear it: a scan for one board costs the same
/// whether the air holds ten boards or a thousand.
@Suite("A scan costs what the boards it can hear cost")
struct VirtualAirScalingTests {
    /// Timers the simulation fired while a central scanned for the first board for two seconds, and what it heard.
    static func scanForOne(among count: Int, wide: Bool = false) async throws -> (timers: Int, heard: Int) {
        try await Simulation.run(seed: 3, horizon: .seconds(60)) { sim in
            let farm = Farm(sim: sim, link: LinkParameters())
            let boards = (0..<count).map { farm.addBoard(id: "esp-\($0)", profile: .espPoint) }
            for board in boards { board.powerOn() }
            try await sim.clock.sleep(for: .seconds(1))
            let before = sim.work.timers
            let filter =
                wide ? ScanFilter(deduplicate: false) : ScanFilter(addresses: [boards[0].address], deduplicate: false)
            let scan = farm.central().scan(filter)
            let heard = try await withThrowingTaskGroup(of: Int?.self) { group in
                group.addTask {
                    var heard = 0
                    for await _ in scan { heard += 1 }
                    return heard
                }
                group.addTask {
                    try await sim.clock.sleep(for: .seconds(2))
                    return nil
                }
                _ = try await group.next()
                group.cancelAll()
                return try await group.next()?.flatMap { $0 } ?? 0
            }
            return (sim.work.timers - before, heard)
        }
    }

    @Test("a scan for one address among 1,000 advertisers fires as many timers as among 10")
    func aNamedScanIgnoresTheOthers() async throws {
        let few = try await Self.scanForOne(among: 10)
        let many = try await Self.scanForOne(among: 1_000)
        #expect(few.heard > 10, "about 20 advertising events in 2 s at 100 ms")
        #expect(many.heard == few.heard)
        #expect(many.timers == few.timers, "\(many.timers) timers among 1,000 boards, \(few.timers) among 10")
    }

    @Test("a scan that names no address still hears every advertiser")
    func aWideScanHearsEveryone() async throws {
        let wide = try await Self.scanForOne(among: 20, wide: true)
        #expect(wide.heard > 20 * 10)
    }
}
