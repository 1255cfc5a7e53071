import BLECore
import DeviceProfiles
import Testing

@testable import VirtualFarm

/// Esp-point boards on the virtual farm, each sent a stream of OTA Data frames (Write Commands of 244 octets) by the
/// GATT client: through one central, whose links share its radio, or through a central per board.
@Suite("Boards on one central share its airtime; boards on separate centrals do not")
struct SharedCentralFarmTests {
    static let link = LinkParameters(connectionInterval: .milliseconds(15), packetsPerEvent: 6)
    static let frames = 300
    static let frameSize = 244

    struct Uploads: Sendable {
        /// Per board: from the common start until the write after the last frame was answered (the frames went
        /// first, in order).
        var durations: [Duration]
        var statistics: [RadioSchedule.Statistics]
        var perLink: [Double] { durations.map { Double(frames * frameSize) / $0.seconds } }
        var aggregate: Double { Double(durations.count * frames * frameSize) / durations.max()!.seconds }
    }

    static func uploads(boards count: Int, sharedCentral: Bool) async throws -> Uploads {
        try await Simulation.run(seed: 6, horizon: .seconds(600)) { sim in
            let farm = Farm(sim: sim, link: link)
            let boards = (0..<count).map { farm.addBoard(id: "esp-\($0)", profile: .espPoint) }
            for board in boards { board.powerOn() }
            try await sim.clock.sleep(for: .seconds(1))
            let shared = farm.central()
            var centrals: [VirtualCentral] = []
            var targets: [(connection: any GATTConnection, data: UInt16, control: UInt16)] = []
            for board in boards {
                let central = sharedCentral ? shared : farm.central()
                if centrals.last !== central { centrals.append(central) }
                let connection = try await central.connect(to: board.address, timeout: .seconds(5))
                _ = try await connection.exchangeMTU(preferred: 247)
                let service = try #require(try await connection.discoverPrimaryServices(EspPoint.otaService).first)
                let characteristics = try await connection.discoverCharacteristics(of: service)
                let data = try #require(characteristics.first { $0.uuid == EspPoint.otaData })
                let control = try #require(characteristics.first { $0.uuid == EspPoint.otaControl })
                targets.append((connection, data.valueHandle, control.valueHandle))
            }
            // Start every stream at the same instant, well after the last handshake.
            try await sim.clock.sleep(for: .milliseconds(500))
            let start = sim.now
            let durations = try await withThrowingTaskGroup(of: (Int, Duration).self) { group in
                for (i, target) in targets.enumerated() {
                    group.addTask {
                        for n in 0..<frames {
                            try await target.connection.writeWithoutResponse(
                                [UInt8](repeating: UInt8(truncatingIfNeeded: n), count: frameSize), to: target.data)
                        }
                        // Not authenticated: refused, but only once every frame before it was carried.
                        do throws(GATTError) { try await target.connection.write([0x01], to: target.control) } catch {
                            guard case .att(.insufficientAuthentication, _, _) = error else { throw error }
                        }
                        return (i, start.duration(to: sim.now))
                    }
                }
                var durations: [(Int, Duration)] = []
                for try await result in group { durations.append(result) }
                return durations.sorted { $0.0 < $1.0 }.map(\.1)
            }
            return Uploads(durations: durations, statistics: centrals.map(\.statistics))
        }
    }

    @Test("on separate centrals every board's upload takes as long as one board's alone, to within an interval")
    func separateCentralsDoNotShare() async throws {
        let alone = try await Self.uploads(boards: 1, sharedCentral: true)
        let separate = try await Self.uploads(boards: 4, sharedCentral: false)
        for duration in separate.durations {
            #expect(abs((duration - alone.durations[0]).seconds) <= Self.link.connectionInterval.seconds)
        }
        #expect(alone.perLink[0] <= LinkModel(Self.link).unacknowledgedThroughput)
        #expect(separate.statistics.count == 4)
        #expect(separate.statistics.allSatisfy { $0.eventsSkipped == 0 && $0.eventsCutShort == 0 })
    }

    @Test("on one central the uploads share the radio: slower per board as boards are added, never above the radio")
    func oneCentralShares() async throws {
        var perLink: [Double] = []
        for count in [1, 4, 8] {
            let shared = try await Self.uploads(boards: count, sharedCentral: true)
            #expect(shared.statistics.count == 1)
            #expect(shared.aggregate <= AirtimeSharingTests.radioCeiling(Self.link))
            if count > 1 { #expect(shared.statistics[0].eventsSkipped + shared.statistics[0].eventsCutShort > 0) }
            perLink.append(shared.perLink.reduce(0, +) / Double(count))
        }
        #expect(perLink[0] > perLink[1] && perLink[1] > perLink[2])
    }
}
