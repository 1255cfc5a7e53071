import BLECore
import Testing

@testable import VirtualFarm

/// N links that all have data to send, on one central (one ``RadioSchedule``) or on N centrals, with first anchors at
/// arbitrary phases drawn from the seed.
@Suite("Airtime sharing: busy links on one central against the same links on separate centrals")
struct AirtimeSharingTests {
    static let settings: [LinkParameters] = [
        // Each event is limited by packets per event (6 of the 10 exchanges that fit in 15 ms).
        LinkParameters(connectionInterval: .milliseconds(15), packetsPerEvent: 6),
        // Each event is limited by airtime (5 exchanges fit in 7.5 ms): one link alone fills the radio.
        LinkParameters(connectionInterval: .microseconds(7_500), packetsPerEvent: 6),
    ]

    /// What each link delivered over 200 connection intervals while every peripheral pushed notifications.
    struct Streams: Sendable, Equatable {
        var perLink: [Double]
        var statistics: [RadioSchedule.Statistics]
        var arrivals: [[RigInstant]]
        var aggregate: Double { perLink.reduce(0, +) }

        /// Per link, the longest time between two notifications arriving.
        var longestWait: [Duration] {
            arrivals.map { times in zip(times, times.dropFirst()).map { $0.duration(to: $1) }.max() ?? .zero }
        }
    }

    static let intervals = 200

    /// - Parameter anchors: the links' first anchors; arbitrary phases drawn from the seed when nil.
    static func streams(
        _ parameters: LinkParameters, links: Int, shared: Bool, seed: UInt64 = 1, anchors: [RigInstant]? = nil
    ) async throws -> Streams {
        try await Simulation.run(seed: seed) { sim in
            let interval = parameters.connectionInterval
            let anchors = anchors ?? LinkBench.arbitraryAnchors(links, interval: interval, seed: sim.seed)
            let bench = LinkBench(sim: sim, parameters: parameters, anchors: anchors, shared: shared)
            // More than any link could send in the run: every link stays busy to the end of the window.
            for i in 0..<links { bench.notify(parameters.packetsPerEvent * (intervals + 4), on: i) }
            // Measured from the second interval on, over whole intervals, once every link has started.
            let start = RigInstant.origin.advanced(by: interval * 2)
            let window = start..<start.advanced(by: interval * intervals)
            try await sim.clock.sleep(until: window.upperBound)
            return Streams(
                perLink: (0..<links).map { bench.throughput(of: $0, in: window) },
                statistics: shared ? [bench.radios[0].statistics] : bench.radios.map(\.statistics),
                arrivals: bench.centralReceived.map { $0.map(\.at) })
        }
    }

    /// The radio's own ceiling: full packets back to back through the whole interval, as if a link's events had no
    /// packet limit. Equal to ``LinkModel/unacknowledgedThroughput`` when airtime is what limits one link.
    static func radioCeiling(_ parameters: LinkParameters) -> Double {
        var unlimited = parameters
        unlimited.packetsPerEvent = .max
        return LinkModel(unlimited).unacknowledgedThroughput
    }

    @Test(
        "one central's links together stay within the radio's ceiling; where one link fills the radio, within its ceiling",
        arguments: settings, [1, 4, 8])
    func aggregateStaysWithinTheCeiling(parameters: LinkParameters, links: Int) async throws {
        let shared = try await Self.streams(parameters, links: links, shared: true)
        let model = LinkModel(parameters)
        #expect(shared.aggregate <= Self.radioCeiling(parameters))
        if Self.radioCeiling(parameters) == model.unacknowledgedThroughput {
            #expect(shared.aggregate <= model.unacknowledgedThroughput)
        }
        #expect(shared.perLink.allSatisfy { $0 <= model.unacknowledgedThroughput })
        // The radio is kept busy: at least the ceiling of one link alone, less one exchange per link and interval
        // lost to the gaps between events.
        let lostToGaps = Double(links * (parameters.dataLength - 7)) / parameters.connectionInterval.seconds
        #expect(shared.aggregate >= min(model.unacknowledgedThroughput, Self.radioCeiling(parameters) - lostToGaps))
    }

    @Test("per-link throughput falls as links are added to one central", arguments: settings)
    func perLinkThroughputFalls(parameters: LinkParameters) async throws {
        var means: [Double] = []
        var lowest: [Double] = []
        for links in [1, 4, 8] {
            let shared = try await Self.streams(parameters, links: links, shared: true)
            means.append(shared.aggregate / Double(links))
            lowest.append(shared.perLink.min()!)
        }
        #expect(agrees(means[0], LinkModel(parameters).unacknowledgedThroughput))
        #expect(means[0] > means[1] && means[1] > means[2])
        #expect(lowest[0] > lowest[1] && lowest[1] > lowest[2])
    }

    @Test("on separate centrals every link gets the throughput of a link alone", arguments: settings, [4, 8])
    func separateCentralsDoNotShare(parameters: LinkParameters, links: Int) async throws {
        let alone = try await Self.streams(parameters, links: 1, shared: false)
        let separate = try await Self.streams(parameters, links: links, shared: false)
        #expect(separate.perLink.allSatisfy { $0 == alone.perLink[0] })
        #expect(agrees(alone.perLink[0], LinkModel(parameters).unacknowledgedThroughput))
        #expect(separate.statistics.allSatisfy { $0.eventsSkipped == 0 && $0.eventsCutShort == 0 })
    }

    @Test(
        "fair: links whose anchors coincide take turns, each getting an equal share of the radio",
        arguments: settings, [2, 4, 8])
    func coincidingAnchorsTakeTurns(parameters: LinkParameters, links: Int) async throws {
        let anchors = Array(repeating: RigInstant.origin.advanced(by: .microseconds(1_000)), count: links)
        let shared = try await Self.streams(parameters, links: links, shared: true, anchors: anchors)
        let equalShare = shared.aggregate / Double(links)
        #expect(shared.perLink.allSatisfy { $0 >= equalShare / 2 }, "per link \(shared.perLink)")
        // Each link runs one full event in every `links` intervals: the shares are exactly equal.
        #expect(shared.perLink.allSatisfy { agrees($0, equalShare) }, "per link \(shared.perLink)")
        #expect(agrees(shared.aggregate, LinkModel(parameters).unacknowledgedThroughput))
    }

    @Test(
        "no link starves: at arbitrary phases every link hears from its peer at least every N intervals",
        arguments: settings, [4, 8])
    func noLinkStarves(parameters: LinkParameters, links: Int) async throws {
        let shared = try await Self.streams(parameters, links: links, shared: true)
        #expect(shared.perLink.allSatisfy { $0 > 0 })
        #expect(shared.longestWait.allSatisfy { $0 <= parameters.connectionInterval * links }, "\(shared.longestWait)")
    }

    @Test("the shared radio gives the same numbers for the same seed, and other numbers for another seed")
    func sharingIsDeterministic() async throws {
        let parameters = Self.settings[0]
        let first = try await Self.streams(parameters, links: 8, shared: true, seed: 7)
        let second = try await Self.streams(parameters, links: 8, shared: true, seed: 7)
        let other = try await Self.streams(parameters, links: 8, shared: true, seed: 8)
        #expect(first == second)
        #expect(first.statistics[0].eventsSkipped + first.statistics[0].eventsCutShort > 0)
        #expect(first.arrivals != other.arrivals)
    }
}

/// Equal but for floating-point rounding (a rate computed over 200 intervals against one over a single interval).
func agrees(_ a: Double, _ b: Double) -> Bool { abs(a - b) <= 1e-9 * max(abs(a), abs(b)) }
