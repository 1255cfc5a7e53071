import BLECore
import DeviceProfiles
import Testing

@testable import VirtualFarm

/// A finished simulation lets go of its farm: the boards hold the air and the air holds the boards, and the timers
/// that never fired hold both. A process that runs many simulations (bench ota-faults runs 10,000) must not keep
/// each one's boards and flash.
@Suite("a finished run frees its farm")
struct FinishedRunReleaseTests {
    /// What the run leaves behind, each read weakly once it is over.
    final class Left: @unchecked Sendable {
        weak var simulation: Simulation?
        weak var air: VirtualAir?
        weak var board: VirtualBoard?
        weak var central: VirtualCentral?
    }

    enum Ending: String, CaseIterable, Sendable {
        /// A board added and never powered.
        case unpowered
        /// A board advertising, its next advertising event a timer that never fires.
        case advertising
        /// A link opened, used and closed.
        case linkClosed
        /// A link still up when the body returns (nothing outside holds it).
        case linkOpen
        /// A scan still listening when the body returns.
        case scanOpen
    }

    @Test("the simulation, the air, the boards and the central are freed", arguments: Ending.allCases)
    func freed(ending: Ending) async throws {
        let left = Left()
        try await Simulation.run(seed: 6, horizon: .seconds(600)) { sim in
            let farm = Farm(sim: sim, link: LinkParameters(connectionInterval: .milliseconds(15), packetsPerEvent: 6))
            let board = farm.addBoard(id: "esp", profile: .espPoint)
            left.simulation = sim
            left.air = farm.air
            left.board = board
            guard ending != .unpowered else { return }
            board.powerOn()
            try await sim.clock.sleep(for: .seconds(1))
            guard ending != .advertising else { return }
            let central = farm.central()
            left.central = central
            let connection = try await central.connect(to: board.address, timeout: .seconds(5))
            _ = try await connection.discoverPrimaryServices(nil)
            if ending == .linkClosed { await connection.disconnect() }
            if ending == .scanOpen {
                await connection.disconnect()
                _ = central.scan(ScanFilter())
            }
        }
        #expect(left.board == nil)
        #expect(left.air == nil)
        #expect(left.central == nil)
        #expect(left.simulation == nil)
    }
}
