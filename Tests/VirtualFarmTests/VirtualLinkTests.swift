import BLECore
import Synchronization
import Testing

@testable import VirtualFarm

/// A peripheral endpoint that answers every PDU with a response of a fixed size, and records arrival times.
private final class Echo: @unchecked Sendable {
    // @unchecked Sendable: used only on the simulation thread.
    var centralReceived: [(pdu: [UInt8], at: RigInstant)] = []
    var peripheralReceived: [RigInstant] = []
    var downReasons: [VirtualLink.Side: HCIErrorCode] = [:]
    var downTimes: [VirtualLink.Side: RigInstant] = [:]
    var responseSize: Int?

    func attach(to link: VirtualLink, sim: Simulation) {
        link.attach(.central, .init(
            receive: { self.centralReceived.append(($0, sim.now)) },
            down: { self.downReasons[.central] = $0; self.downTimes[.central] = sim.now }))
        link.attach(.peripheral, .init(
            receive: { _ in
                self.peripheralReceived.append(sim.now)
                if let size = self.responseSize { link.send([UInt8](repeating: 0x0B, count: size), from: .peripheral) }
            },
            down: { self.downReasons[.peripheral] = $0; self.downTimes[.peripheral] = sim.now }))
    }
}

@Suite("VirtualLink follows the link model")
struct VirtualLinkTests {
    static let parameterSets: [LinkParameters] = [
        LinkParameters(connectionInterval: .microseconds(7_500), packetsPerEvent: 4, phy: .le2M, dataLength: 251),
        LinkParameters(connectionInterval: .milliseconds(15), packetsPerEvent: 6, phy: .le2M, dataLength: 251),
        LinkParameters(connectionInterval: .milliseconds(30), packetsPerEvent: 6, phy: .le1M, dataLength: 27),
        LinkParameters(connectionInterval: .milliseconds(50), packetsPerEvent: 3, phy: .leCoded, dataLength: 27),
    ]

    @Test("request/response arrival equals the closed form", arguments: parameterSets, [(5, 7), (3, 60), (40, 3)])
    func requestResponseMatchesClosedForm(parameters: LinkParameters, sizes: (request: Int, response: Int)) async throws {
        let (measured, predicted) = try await Simulation.run(seed: 1) { sim in
            let anchor0 = RigInstant(sinceOrigin: .microseconds(3_137))
            let link = VirtualLink(sim: sim, parameters: parameters, handle: 0x40, anchor0: anchor0)
            let echo = Echo()
            echo.responseSize = sizes.response
            echo.attach(to: link, sim: sim)
            var measured: [RigInstant] = []
            var predicted: [RigInstant] = []
            // Issue requests at awkward moments, including exactly on an anchor point.
            for offset in [Duration.microseconds(10), .zero, parameters.connectionInterval * 3, .microseconds(4_321)] {
                try await sim.clock.sleep(until: max(sim.now, anchor0).advanced(by: offset))
                let issued = sim.now
                link.send([UInt8](repeating: 0x0A, count: sizes.request), from: .central)
                let before = echo.centralReceived.count
                while echo.centralReceived.count == before { try await sim.clock.sleep(for: .microseconds(50)) }
                measured.append(echo.centralReceived.last!.at)
                predicted.append(LinkModel(parameters).responseArrival(
                    requestIssued: issued, requestSize: sizes.request, responseSize: sizes.response, anchor0: anchor0))
            }
            return (measured, predicted)
        }
        #expect(measured == predicted)
    }

    @Test("back-to-back round trips cost two connection intervals each")
    func backToBackRoundTrips() async throws {
        let parameters = LinkParameters(connectionInterval: .milliseconds(15))
        let gaps = try await Simulation.run(seed: 1) { sim in
            let link = VirtualLink(sim: sim, parameters: parameters, handle: 0x40, anchor0: .origin)
            let echo = Echo()
            echo.responseSize = 5
            echo.attach(to: link, sim: sim)
            var arrivals: [RigInstant] = []
            for _ in 0..<5 {
                link.send([1, 2, 3], from: .central)
                let before = echo.centralReceived.count
                while echo.centralReceived.count == before { try await sim.clock.sleep(for: .microseconds(100)) }
                arrivals.append(echo.centralReceived.last!.at)
            }
            return zip(arrivals.dropFirst(), arrivals).map { $0.sinceOrigin - $1.sinceOrigin }
        }
        #expect(gaps == Array(repeating: .milliseconds(30), count: 4))
    }

    @Test("a stream of notifications runs at the unacknowledged ceiling", arguments: parameterSets)
    func notificationStreamHitsCeiling(parameters: LinkParameters) async throws {
        let count = 600
        let valueSize = parameters.dataLength - 7
        let (first, last) = try await Simulation.run(seed: 1) { sim in
            let link = VirtualLink(sim: sim, parameters: parameters, handle: 0x40, anchor0: .origin, transmitBuffers: .max)
            let echo = Echo()
            echo.attach(to: link, sim: sim)
            for _ in 0..<count { link.send([UInt8](repeating: 0x1B, count: valueSize + 3), from: .peripheral) }
            while echo.centralReceived.count < count { try await sim.clock.sleep(for: .milliseconds(1)) }
            return (echo.centralReceived.first!.at, echo.centralReceived.last!.at)
        }
        let ceilingPerEvent = LinkModel(parameters).unacknowledgedThroughput * parameters.connectionInterval.seconds
            / Double(valueSize)
        #expect(ceilingPerEvent == ceilingPerEvent.rounded() && ceilingPerEvent <= Double(parameters.packetsPerEvent))
        // Every event but the last is full: the stream needs exactly ceil(count / ceiling) events.
        let eventsUsed = Int((last.sinceOrigin / parameters.connectionInterval).rounded(.down)) + 1
        #expect(first.sinceOrigin < parameters.connectionInterval)
        #expect(eventsUsed == Int((Double(count) / ceilingPerEvent).rounded(.up)))
    }

    @Test("a terminate tells the peer the reason and the initiator 0x16")
    func terminateReasons() async throws {
        let echo = try await Simulation.run(seed: 1) { sim in
            let link = VirtualLink(sim: sim, parameters: LinkParameters(), handle: 0x40, anchor0: .origin)
            let echo = Echo()
            echo.attach(to: link, sim: sim)
            try await sim.clock.sleep(for: .milliseconds(20))
            link.terminate(from: .peripheral, reason: .remotePowerOff)
            try await sim.clock.sleep(for: .milliseconds(100))
            return echo
        }
        #expect(echo.downReasons[.central] == .remotePowerOff)
        #expect(echo.downReasons[.peripheral] == .localHostTerminated)
        #expect(echo.downTimes[.central]! == RigInstant(sinceOrigin: .milliseconds(30)) + PHY.le2M.packetAirtime(payload: 0)
            + PHY.interFrameSpace + PHY.le2M.packetAirtime(payload: 2))
    }

    @Test("a lost signal is reported as 0x08 one supervision timeout after the last event, and loses data in flight")
    func lostSignalTimesOut() async throws {
        let parameters = LinkParameters(connectionInterval: .milliseconds(15), supervisionTimeout: .milliseconds(720))
        let echo = try await Simulation.run(seed: 1) { sim in
            let link = VirtualLink(sim: sim, parameters: parameters, handle: 0x40, anchor0: .origin)
            let echo = Echo()
            echo.responseSize = 5
            echo.attach(to: link, sim: sim)
            try await sim.clock.sleep(until: RigInstant(sinceOrigin: .milliseconds(100)))
            link.send([1, 2, 3], from: .central)  // would leave at 105 ms
            try await sim.clock.sleep(until: RigInstant(sinceOrigin: .milliseconds(104)))
            link.loseSignal()
            try await sim.clock.sleep(for: .seconds(2))
            return echo
        }
        #expect(echo.peripheralReceived.isEmpty)
        #expect(echo.downReasons == [.central: .connectionTimeout, .peripheral: .connectionTimeout])
        #expect(echo.downTimes[.central] == RigInstant(sinceOrigin: .milliseconds(90 + 720)))
    }
}
