import BLECore
import CentralStack
import DeviceProfiles
import Testing

@testable import VirtualFarm

/// The handshake's GATT cache against the virtual farm's boards: cold and warm, hits, misses and invalidation.
/// Virtual time is deterministic, so the cold/warm ratio is a property of the stack and the link model, not of
/// the machine the test runs on.
@Suite("GATT cache on the virtual farm")
struct GATTCacheFarmTests {
    static let link = LinkParameters(connectionInterval: .milliseconds(15))

    /// One handshake's timeline, hash and Service Changed count, after `body` ran in the session.
    static func handshake(
        _ farm: Farm, _ board: VirtualBoard, cache: any GATTCache,
        _ body: @Sendable (ProfileSession) async throws -> Void = { _ in }
    ) async throws -> (timeline: HandshakeTimeline, hash: [UInt8]?, changes: Int) {
        try await Handshake.withSession(
            central: farm.central(), address: board.address, spec: .standard(board.profile),
            connectTimeout: .seconds(5), cache: cache
        ) { session in
            try await body(session)
            return (session.timeline, session.databaseHash, session.serviceChangedCount)
        }
    }

    @Test("esp-point at 15 ms: a warm reconnect skips discovery and is ready in at most a third of the cold time")
    func warmIsAThirdOfCold() async throws {
        let (cold, warm, counters) = try await Simulation.run(seed: 11, horizon: .seconds(600)) { sim in
            let farm = Farm(sim: sim, link: Self.link)
            let board = farm.addBoard(id: "esp-1", profile: .espPoint)
            board.powerOn()
            try await sim.clock.sleep(for: .seconds(1))
            var cold: [HandshakeTimeline] = []
            var warm: [HandshakeTimeline] = []
            let counters = InMemoryGATTCache()
            for round in 0..<5 {
                let cache = InMemoryGATTCache()
                cold.append(try await Self.handshake(farm, board, cache: cache).timeline)
                try await sim.clock.sleep(for: .milliseconds(130 + 70 * round))
                warm.append(try await Self.handshake(farm, board, cache: cache).timeline)
                try await sim.clock.sleep(for: .milliseconds(170 + 50 * round))
                if round == 0 {
                    _ = try await Self.handshake(farm, board, cache: counters)
                    _ = try await Self.handshake(farm, board, cache: counters)
                }
            }
            return (cold, warm, counters.counters)
        }
        #expect(cold.allSatisfy { $0.discovery == .full })
        #expect(warm.allSatisfy { $0.discovery == .cached })
        let coldMedian = cold.map(\.total).sorted()[2]
        let warmMedian = warm.map(\.total).sorted()[2]
        #expect(warmMedian * 3 <= coldMedian, "warm \(warmMedian) vs cold \(coldMedian)")
        // The first handshake found nothing and stored the table; the second read the hash and hit.
        #expect(counters.stores == 1 && counters.hits == 1 && counters.misses == 0)
    }

    @Test(
        "nano and hrm have no Database Hash: every handshake discovers and nothing is cached or read",
        arguments: [
            Profile.nano33BLESense, .hrm,
        ])
    func boardsWithoutHash(profile: Profile) async throws {
        let (timelines, hashes, counters, cached) = try await Simulation.run(seed: 4, horizon: .seconds(600)) { sim in
            let farm = Farm(sim: sim, link: Self.link)
            let board = farm.addBoard(id: "b-1", profile: profile)
            board.powerOn()
            try await sim.clock.sleep(for: .seconds(1))
            let cache = InMemoryGATTCache()
            let first = try await Self.handshake(farm, board, cache: cache)
            try await sim.clock.sleep(for: .milliseconds(300))
            let second = try await Self.handshake(farm, board, cache: cache)
            return (
                [first.timeline, second.timeline], [first.hash, second.hash], cache.counters,
                cache.hasTable(for: CachedBoard(address: board.address, profile: profile))
            )
        }
        #expect(timelines.allSatisfy { $0.discovery == .full })
        #expect(hashes.allSatisfy { $0 == nil })
        #expect(counters == InMemoryGATTCache.Counters())
        #expect(!cached)
    }

    @Test("a changed table changes the hash: the reconnect misses, rediscovers, and the next one is warm again")
    func hashMismatchRediscovers() async throws {
        let (results, counters) = try await Simulation.run(seed: 8, horizon: .seconds(600)) { sim in
            let farm = Farm(sim: sim, link: Self.link)
            let board = farm.addBoard(id: "esp-1", profile: .espPoint)
            board.powerOn()
            try await sim.clock.sleep(for: .seconds(1))
            let cache = InMemoryGATTCache()
            var results: [(HandshakeTimeline.Discovery, [UInt8]?)] = []
            for step in 0..<4 {
                // Between the second and third handshake, the board's table changes while nobody is connected.
                if step == 2 { board.type("gatt-test-service on") }
                let outcome = try await Self.handshake(farm, board, cache: cache)
                results.append((outcome.timeline.discovery, outcome.hash))
                try await sim.clock.sleep(for: .milliseconds(250))
            }
            return (results, cache.counters)
        }
        #expect(results.map(\.0) == [.full, .cached, .full, .cached])
        #expect(results[0].1 == results[1].1 && results[2].1 == results[3].1)
        #expect(results[1].1 != results[2].1)
        #expect(counters.misses == 1 && counters.hits == 2 && counters.stores == 2)
    }

    @Test("Service Changed during a session invalidates the cache; the next handshake rediscovers the new table")
    func serviceChangedInvalidates() async throws {
        let outcome = try await Simulation.run(seed: 9, horizon: .seconds(600)) { sim in
            let farm = Farm(sim: sim, link: Self.link)
            let board = farm.addBoard(id: "esp-1", profile: .espPoint)
            board.powerOn()
            try await sim.clock.sleep(for: .seconds(1))
            let cache = InMemoryGATTCache()
            let key = CachedBoard(address: board.address, profile: .espPoint)
            let first = try await Self.handshake(farm, board, cache: cache)
            try await sim.clock.sleep(for: .milliseconds(250))
            let during = try await Self.handshake(farm, board, cache: cache) { session in
                #expect(cache.hasTable(for: key))
                board.type("gatt-test-service on")
                try await sim.clock.sleep(for: .milliseconds(200))
                // The session goes on: the handles it uses did not move.
                _ = try await EspPointClient(session: session).identity()
            }
            let cachedAfterChange = cache.hasTable(for: key)
            try await sim.clock.sleep(for: .milliseconds(250))
            let after = try await Self.handshake(farm, board, cache: cache)
            return (first, during, cachedAfterChange, after, cache.counters)
        }
        #expect(outcome.0.timeline.discovery == .full)
        #expect(outcome.1.timeline.discovery == .cached)
        #expect(outcome.1.changes == 1)
        #expect(!outcome.2)
        #expect(outcome.3.timeline.discovery == .full)
        #expect(outcome.3.hash != outcome.0.hash)
        #expect(outcome.4.invalidations == 1)
    }
}
