import BLECore
import Testing

@testable import VirtualFarm

/// The rules of ``RadioSchedule``, event by event, with the instants worked out by hand. The link: 15 ms interval,
/// 6 packets per event, LE 2M, 251-octet packets. An exchange of an empty central packet (44 µs) and a full
/// notification (1 048 µs) with two T_IFS takes 1 392 µs; the notification lands 1 242 µs after the exchange starts.
@Suite("RadioSchedule: the links of one central share its airtime")
struct RadioScheduleTests {
    static let parameters = LinkParameters(connectionInterval: .milliseconds(15), packetsPerEvent: 6)
    static let exchange = Duration.microseconds(1_392)
    static let landsAfter = Duration.microseconds(1_242)

    static func at(_ microseconds: Int) -> RigInstant { RigInstant(sinceOrigin: .microseconds(microseconds)) }

    /// Notification arrival instants of an event at `anchor` that carries `count` of them.
    static func arrivals(_ count: Int, eventAt anchor: RigInstant, from first: Int = 0) -> [RigInstant] {
        (first..<first + count).map { anchor.advanced(by: landsAfter + exchange * $0) }
    }

    struct Outcome: Sendable {
        var arrivals: [[RigInstant]]
        var statistics: [RadioSchedule.Statistics]
        var skipped: [Int]
    }

    /// Runs two links with the given first anchors: each queues `counts[i]` notifications at `queuedAt[i]`.
    static func twoLinks(
        anchors: [RigInstant], counts: [Int], queuedAt: [RigInstant] = [.origin, .origin], shared: Bool,
        until end: RigInstant = at(200_000)
    ) async throws -> Outcome {
        try await Simulation.run(seed: 1) { sim in
            let bench = LinkBench(sim: sim, parameters: parameters, anchors: anchors, shared: shared)
            for i in queuedAt.indices.sorted(by: { (queuedAt[$0], $0) < (queuedAt[$1], $1) }) {
                try await sim.clock.sleep(until: queuedAt[i])
                bench.notify(counts[i], on: i)
            }
            try await sim.clock.sleep(until: end)
            return Outcome(
                arrivals: bench.centralReceived.map { $0.map(\.at) }, statistics: bench.radios.map(\.statistics),
                skipped: bench.links.map(\.statistics.skipped))
        }
    }

    @Test("shifted: an event stops before the next anchor of another link with data, and resumes one interval later")
    func eventYieldsToTheNextAnchor() async throws {
        let shared = try await Self.twoLinks(anchors: [Self.at(0), Self.at(3_000)], counts: [6, 6], shared: true)
        // Two exchanges of A end at 2 784 µs; a third would land after 2 850 µs (B's anchor minus T_IFS).
        #expect(
            shared.arrivals[0] == Self.arrivals(2, eventAt: Self.at(0)) + Self.arrivals(4, eventAt: Self.at(15_000)))
        #expect(shared.arrivals[1] == Self.arrivals(6, eventAt: Self.at(3_000)))
        #expect(shared.statistics[0] == RadioSchedule.Statistics(eventsRun: 3, eventsSkipped: 0, eventsCutShort: 1))
        let alone = try await Self.twoLinks(anchors: [Self.at(0), Self.at(3_000)], counts: [6, 6], shared: false)
        #expect(alone.arrivals[0] == Self.arrivals(6, eventAt: Self.at(0)))
        #expect(alone.statistics.allSatisfy { $0 == RadioSchedule.Statistics(eventsRun: 1) })
    }

    @Test("shifted: an event keeps its first exchange at its anchor, however close the next anchor is")
    func firstExchangeIsKept() async throws {
        // B's anchor at 1 500 µs leaves A room for exactly its first exchange (1 392 µs) in every event.
        let outcome = try await Self.twoLinks(anchors: [Self.at(0), Self.at(1_500)], counts: [3, 30], shared: true)
        #expect(outcome.arrivals[0] == [0, 15_000, 30_000].flatMap { Self.arrivals(1, eventAt: Self.at($0)) })
        #expect(Array(outcome.arrivals[1].prefix(6)) == Self.arrivals(6, eventAt: Self.at(1_500)))
        #expect(outcome.statistics[0].eventsCutShort == 2)
        #expect(outcome.skipped == [0, 0])
    }

    @Test(
        "busy: an anchor that falls inside another link's running event is skipped; the next chance is one interval on")
    func busyRadioSkipsTheEvent() async throws {
        // A's event was planned at 0 µs when B had nothing queued, so it runs its six exchanges to 8 352 µs; B's data,
        // queued at 1 ms, misses B's anchor at 3 ms and leaves at 18 ms.
        let anchors = [Self.at(0), Self.at(3_000)]
        let shared = try await Self.twoLinks(
            anchors: anchors, counts: [6, 1], queuedAt: [.origin, Self.at(1_000)], shared: true)
        #expect(shared.arrivals[0] == Self.arrivals(6, eventAt: Self.at(0)))
        #expect(shared.arrivals[1] == Self.arrivals(1, eventAt: Self.at(18_000)))
        #expect(shared.skipped == [0, 1])
        #expect(shared.statistics[0] == RadioSchedule.Statistics(eventsRun: 2, eventsSkipped: 1, eventsCutShort: 0))
        let alone = try await Self.twoLinks(
            anchors: anchors, counts: [6, 1], queuedAt: [.origin, Self.at(1_000)], shared: false)
        #expect(alone.arrivals[1] == Self.arrivals(1, eventAt: Self.at(3_000)))
        #expect(alone.skipped == [0, 0])
    }

    @Test(
        "fair: of two colliding anchors the link skipped more often wins, so the two take turns",
        arguments: [0, 500])
    func collidingLinksTakeTurns(offsetMicroseconds: Int) async throws {
        // B's anchor lies inside A's first exchange: only one of them can run at each collision.
        let outcome = try await Self.twoLinks(
            anchors: [Self.at(0), Self.at(offsetMicroseconds)], counts: [24, 24], shared: true)
        let a = [0, 30_000, 60_000, 90_000].flatMap { Self.arrivals(6, eventAt: Self.at($0)) }
        let b = [15_000, 45_000, 75_000, 105_000].flatMap {
            Self.arrivals(6, eventAt: Self.at($0 + offsetMicroseconds))
        }
        #expect(outcome.arrivals[0] == a)
        #expect(outcome.arrivals[1] == b)
        #expect(outcome.skipped == [3, 4])
        #expect(outcome.statistics[0] == RadioSchedule.Statistics(eventsRun: 8, eventsSkipped: 7, eventsCutShort: 0))
    }

    @Test("a link alone on its radio never skips and never yields, however long its events")
    func loneLinkNeverSkips() async throws {
        let outcome = try await Self.twoLinks(
            anchors: [Self.at(700), Self.at(0)], counts: [600, 0], shared: true, until: Self.at(1_600_000))
        #expect(outcome.arrivals[0].count == 600)
        #expect(outcome.arrivals[0] == (0..<100).flatMap { Self.arrivals(6, eventAt: Self.at(700 + 15_000 * $0)) })
        #expect(outcome.statistics[0] == RadioSchedule.Statistics(eventsRun: 100))
    }
}
