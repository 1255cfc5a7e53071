import BLECore
import Testing

@testable import VirtualFarm

/// Request/response round trips on links that share one central's radio, against ``LinkModel``'s closed form for a
/// link alone. Every link runs the same exchange: an 11-octet request answered by a 600-octet response (three LL
/// packets), with a pause drawn from the seed before each request.
@Suite("Round trips on a shared radio")
struct SharedRoundTripTests {
    static let requestSize = 11
    static let responseSize = 600
    static let roundTrips = 30

    /// Per link: each round trip as measured (request queued → response delivered), and as the closed form
    /// predicts for the same request on a link alone.
    struct RoundTrips: Sendable, Equatable {
        var measured: [[Duration]]
        var predicted: [[Duration]]
        var statistics: RadioSchedule.Statistics

        var meanMeasured: Duration { mean(measured.flatMap { $0 }) }
        var meanPredicted: Duration { mean(predicted.flatMap { $0 }) }
        /// How much longer a round trip took on average than on a link alone.
        var meanDelay: Duration { meanMeasured - meanPredicted }
        private func mean(_ values: [Duration]) -> Duration { values.reduce(.zero, +) / values.count }
    }

    static func roundTrips(
        _ parameters: LinkParameters, links: Int, shared: Bool, seed: UInt64 = 1
    ) async throws -> RoundTrips {
        try await Simulation.run(seed: seed) { sim in
            let anchors = LinkBench.arbitraryAnchors(links, interval: parameters.connectionInterval, seed: sim.seed)
            let bench = LinkBench(sim: sim, parameters: parameters, anchors: anchors, shared: shared)
            bench.responseSize = responseSize
            let model = LinkModel(parameters)
            let results = await withTaskGroup(of: (Int, [Duration], [Duration]).self) { group in
                for i in 0..<links {
                    group.addTask {
                        var random = SeededRandom(seed: sim.seed, stream: "round-trips/\(i)")
                        var measured: [Duration] = []
                        var predicted: [Duration] = []
                        for n in 1...roundTrips {
                            try? await sim.clock.sleep(for: .microseconds(Double(random.next() % 20_000)))
                            let issued = sim.now
                            bench.links[i].send([UInt8](repeating: 0x0A, count: requestSize), from: .central)
                            let arrived = await bench.centralReceived(n, on: i)
                            measured.append(issued.duration(to: arrived))
                            let alone = model.responseArrival(
                                requestIssued: issued, requestSize: requestSize, responseSize: responseSize,
                                anchor0: anchors[i])
                            predicted.append(issued.duration(to: alone))
                        }
                        return (i, measured, predicted)
                    }
                }
                var results: [(Int, [Duration], [Duration])] = []
                for await result in group { results.append(result) }
                return results.sorted { $0.0 < $1.0 }
            }
            return RoundTrips(
                measured: results.map(\.1), predicted: results.map(\.2),
                statistics: bench.radios[0].statistics)
        }
    }

    static let parameters = LinkParameters(connectionInterval: .milliseconds(15), packetsPerEvent: 6)

    @Test("on separate centrals every round trip equals the closed form", arguments: [1, 4, 8])
    func separateCentralsMatchTheClosedForm(links: Int) async throws {
        let separate = try await Self.roundTrips(Self.parameters, links: links, shared: false)
        #expect(separate.measured == separate.predicted)
    }

    @Test("on one central round trips are never faster than alone, and slower on average", arguments: [4, 8])
    func sharedRoundTripsAreSlower(links: Int) async throws {
        let shared = try await Self.roundTrips(Self.parameters, links: links, shared: true)
        for (measured, predicted) in zip(shared.measured, shared.predicted) {
            #expect(zip(measured, predicted).allSatisfy { $0 >= $1 })
        }
        #expect(shared.meanMeasured > shared.meanPredicted)
        #expect(shared.statistics.eventsCutShort + shared.statistics.eventsSkipped > 0)
    }

    @Test("more links on one central delay round trips more")
    func moreLinksSlowerRoundTrips() async throws {
        var delays: [Duration] = []
        for links in [1, 4, 8] {
            delays.append(try await Self.roundTrips(Self.parameters, links: links, shared: true).meanDelay)
        }
        #expect(delays[0] == .zero)
        #expect(delays[0] < delays[1] && delays[1] < delays[2])
    }

    @Test("shared round trips are the same for the same seed")
    func roundTripsAreDeterministic() async throws {
        let first = try await Self.roundTrips(Self.parameters, links: 8, shared: true, seed: 5)
        let second = try await Self.roundTrips(Self.parameters, links: 8, shared: true, seed: 5)
        #expect(first == second)
    }
}
