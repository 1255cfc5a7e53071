import BLECore
import Testing

@testable import VirtualFarm

@Suite("VirtualLink: transmit buffers and writers that wait for them")
struct VirtualLinkBufferTests {
    @Test(
        "a writer woken by the space an event freed sends in the next event, so a stream stays at the ceiling",
        arguments: [
            LinkParameters(connectionInterval: .milliseconds(15), packetsPerEvent: 6, phy: .le2M, dataLength: 251),
            LinkParameters(connectionInterval: .milliseconds(30), packetsPerEvent: 6, phy: .le1M, dataLength: 27),
        ])
    func wokenWriterWaitsForTheNextEvent(parameters: LinkParameters) async throws {
        let count = 300
        let model = LinkModel(parameters)
        let perEvent =
            Int((model.unacknowledgedThroughput * parameters.connectionInterval.seconds).rounded())
            / (parameters.dataLength - 7)
        let (arrivals, events) = try await Simulation.run(seed: 1) { sim in
            let link = VirtualLink(
                sim: sim, parameters: parameters, handle: 0x40, anchor0: .origin, transmitBuffers: 16)
            let arrivals = Arrivals()
            link.attach(.central, .init(receive: { _ in }, down: { _ in }))
            link.attach(.peripheral, .init(receive: { _ in arrivals.times.append(sim.now) }, down: { _ in }))
            for _ in 0..<count {
                await link.waitForSpace(.central)
                link.send([UInt8](repeating: 0x52, count: parameters.dataLength - 4), from: .central)
            }
            while arrivals.times.count < count { try await sim.clock.sleep(for: parameters.connectionInterval) }
            return (arrivals.times, link.statistics.events)
        }
        let expectedEvents = (count + perEvent - 1) / perEvent
        #expect(events == expectedEvents)
        let lastEvent = Int((arrivals.last!.sinceOrigin / parameters.connectionInterval).rounded(.down))
        #expect(lastEvent == expectedEvents - 1)
    }
}

/// Arrival instants, appended on the simulation thread.
private final class Arrivals: @unchecked Sendable {
    // @unchecked Sendable: used only on the simulation thread.
    var times: [RigInstant] = []
}
