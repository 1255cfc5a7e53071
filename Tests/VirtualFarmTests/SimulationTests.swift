import BLECore
import Synchronization
import Testing

@testable import VirtualFarm

@Suite("Simulation: virtual time on one executor")
struct SimulationTests {
    @Test("sleepers wake in deadline order and the clock reads the deadline")
    func sleepersWakeInOrder() async throws {
        let trace = try await Simulation.run(seed: 1) { sim in
            let clock = sim.clock
            return await withTaskGroup(of: [String].self) { group in
                for (name, delays) in [("a", [30, 10]), ("b", [10, 10, 10]), ("c", [25])] {
                    group.addTask {
                        var seen: [String] = []
                        for delay in delays {
                            try? await clock.sleep(for: .milliseconds(delay))
                            seen.append("\(name)@\(Int(clock.now.sinceOrigin.milliseconds))")
                        }
                        return seen
                    }
                }
                var all: [String] = []
                for await part in group { all += part }
                return all.sorted()
            }
        }
        #expect(trace == ["a@30", "a@40", "b@10", "b@20", "b@30", "c@25"])
    }

    actor Recorder {
        var events: [String] = []
        func note(_ s: String) { events.append(s) }
    }

    @Test("two runs with the same program interleave identically")
    func interleavingIsDeterministic() async throws {
        func once() async throws -> [String] {
            try await Simulation.run(seed: 7) { sim in
                let recorder = Recorder()
                await withTaskGroup(of: Void.self) { group in
                    for worker in 0..<8 {
                        group.addTask {
                            var rng = SeededRandom(seed: sim.seed, stream: "worker\(worker)")
                            for step in 0..<20 {
                                try? await sim.clock.sleep(for: .microseconds(Double(rng.next() % 5_000)))
                                await recorder.note("\(worker).\(step)@\(sim.now.sinceOrigin)")
                            }
                        }
                    }
                }
                return await recorder.events
            }
        }
        let first = try await once()
        let second = try await once()
        #expect(first.count == 160)
        #expect(first == second)
    }

    @Test("a cancelled sleep wakes at once and virtual time does not jump to its deadline")
    func cancelledSleepWakesAtOnce() async throws {
        let (woke, finishedAt) = try await Simulation.run(seed: 1) { sim in
            await withTaskGroup(of: Bool.self) { group in
                group.addTask {
                    do {
                        try await sim.clock.sleep(for: .seconds(3600))
                        return true
                    } catch { return false }
                }
                group.addTask {
                    try? await sim.clock.sleep(for: .milliseconds(5))
                    return true
                }
                _ = await group.next()
                group.cancelAll()
                let other = await group.next()!
                return (other, sim.now)
            }
        }
        #expect(woke == false)
        #expect(finishedAt == RigInstant(sinceOrigin: .milliseconds(5)))
    }

    @Test("a task waiting on something nobody will provide is reported as a stall, not a hang")
    func stallIsReported() async throws {
        await #expect(throws: SimulationError.self) {
            try await Simulation.run(seed: 1) { sim in
                let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
                _ = continuation  // never yields
                try await sim.clock.sleep(for: .seconds(2))
                for await _ in stream {}
                try Task.checkCancellation()
                return 0
            }
        }
    }

    @Test("passing the horizon stops the run")
    func horizonStopsRun() async throws {
        await #expect(throws: SimulationError.horizonReached(.seconds(10))) {
            try await Simulation.run(seed: 1, horizon: .seconds(10)) { sim in
                try await sim.clock.sleep(for: .seconds(11))
                return 0
            }
        }
    }

    @Test("timers scheduled for the same instant run in the order they were scheduled")
    func sameInstantTimersKeepOrder() async throws {
        let order = try await Simulation.run(seed: 1) { sim in
            let log = Mutex<[Int]>([])
            for i in 0..<50 {
                sim.schedule(at: RigInstant(sinceOrigin: .milliseconds(10))) { log.withLock { $0.append(i) } }
            }
            try await sim.clock.sleep(for: .milliseconds(20))
            return log.withLock { $0 }
        }
        #expect(order == Array(0..<50))
    }

    @Test("a simulated day costs no wall time")
    func longVirtualSpansAreCheap() async throws {
        let end = try await Simulation.run(seed: 1) { sim in
            for _ in 0..<(24 * 60) { try await sim.clock.sleep(for: .seconds(60)) }
            return sim.now
        }
        #expect(end == RigInstant(sinceOrigin: .seconds(86_400)))
    }
}

@Suite("SeededRandom")
struct SeededRandomTests {
    @Test("the same seed and stream give the same sequence; other streams differ")
    func streamsAreReproducible() {
        var a = SeededRandom(seed: 42, stream: "esp-01")
        var b = SeededRandom(seed: 42, stream: "esp-01")
        var c = SeededRandom(seed: 42, stream: "esp-02")
        let sa = (0..<16).map { _ in a.next() }
        #expect(sa == (0..<16).map { _ in b.next() })
        #expect(sa != (0..<16).map { _ in c.next() })
    }

    @Test("unit values lie in [0, 1) and their mean is near one half")
    func unitValuesAreUniformEnough() {
        var rng = SeededRandom(seed: 3)
        let values = (0..<20_000).map { _ in rng.nextUnit() }
        #expect(values.allSatisfy { $0 >= 0 && $0 < 1 })
        let mean = values.reduce(0, +) / Double(values.count)
        #expect(abs(mean - 0.5) < 0.01)
    }

    @Test("random access values depend only on seed, stream and index")
    func randomAccessIsStable() {
        let x = SeededRandom.unit(seed: 9, stream: "adv", index: 12)
        #expect(x == SeededRandom.unit(seed: 9, stream: "adv", index: 12))
        #expect(x != SeededRandom.unit(seed: 9, stream: "adv", index: 13))
    }
}
