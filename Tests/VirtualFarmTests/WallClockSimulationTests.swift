import BLECore
import Foundation
import Synchronization
import Testing

@testable import VirtualFarm

/// Timing bounds here are generous (tests share a loaded machine): lateness up to half a second is tolerated, and
/// "did not wait for the far timer" means well under the minute that timer is away.
@Suite("Simulation on the wall clock: real time, work from other threads")
struct WallClockSimulationTests {
    static let lateness: Duration = .milliseconds(500)

    @Test("timers fire in deadline order, each once the monotonic time since the run began reaches its deadline")
    func timersFireAtTheirWallTime() async throws {
        // Deadlines count from when they are scheduled: on a loaded machine the body may start late, and a
        // deadline already past would fire at once, in scheduling order.
        let (fired, base, outsideBase) = try await Simulation.runOnWallClock(seed: 1) { sim in
            let log = Mutex<[(deadline: Int, at: RigInstant, outside: Duration)]>([])
            let base = sim.now
            let outsideBase = ContinuousClock.now
            for deadline in [150, 50, 100] {
                sim.schedule(at: base.advanced(by: .milliseconds(deadline))) {
                    log.withLock { $0.append((deadline, sim.now, outsideBase.duration(to: .now))) }
                }
            }
            try await sim.clock.sleep(until: base.advanced(by: .milliseconds(200)))
            return (log.withLock { $0 }, base, outsideBase)
        }
        _ = outsideBase
        #expect(fired.map(\.deadline) == [50, 100, 150])
        for var timer in fired {
            timer.at = RigInstant(sinceOrigin: base.duration(to: timer.at))
            let deadline = Duration.milliseconds(timer.deadline)
            #expect(timer.at.sinceOrigin >= deadline, "timer \(timer.deadline) fired early, at \(timer.at)")
            #expect(timer.at.sinceOrigin < deadline + Self.lateness, "timer \(timer.deadline) fired at \(timer.at)")
            // Real time passed, not just the simulation's reading of it.
            #expect(timer.outside >= deadline)
        }
    }

    @Test("time starts near zero when the run begins and follows the monotonic clock")
    func nowIsMonotonicTimeSinceTheRunBegan() async throws {
        let outsideStart = ContinuousClock.now
        let (first, afterSleep) = try await Simulation.runOnWallClock(seed: 1) { sim in
            let first = sim.now
            try await sim.clock.sleep(for: .milliseconds(120))
            return (first, sim.now)
        }
        let outside = outsideStart.duration(to: .now)
        #expect(first.sinceOrigin >= .zero)
        #expect(first.sinceOrigin < Self.lateness)
        #expect(first.duration(to: afterSleep) >= .milliseconds(120))
        #expect(afterSleep.sinceOrigin <= outside)
    }

    @Test("actions posted from another thread run in order on the simulation thread and wake a sleeping executor")
    func postRunsOnTheSimulationThread() async throws {
        let (order, allOnSimulationThread, waited) = try await Simulation.runOnWallClock(seed: 1) { sim in
            // Without the posts the executor would sleep until this timer, a minute away.
            sim.schedule(after: .seconds(60)) {}
            let start = sim.now
            let seen = Mutex<(order: [Int], onThread: Bool)>(([], true))
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                let poster = Thread {
                    Thread.sleep(forTimeInterval: 0.1)
                    for i in 0..<20 {
                        sim.post {
                            let onThread = sim.executor.isOnSimulationThread
                            seen.withLock {
                                $0.order.append(i)
                                $0.onThread = $0.onThread && onThread
                            }
                        }
                    }
                    sim.post { done.resume() }
                }
                poster.start()
            }
            let result = seen.withLock { $0 }
            return (result.order, result.onThread, start.duration(to: sim.now))
        }
        #expect(order == Array(0..<20))
        #expect(allOnSimulationThread)
        #expect(waited >= .milliseconds(100))
        #expect(waited < .seconds(10))
    }

    @Test("an action posted after the run is over is refused")
    func postAfterTheRunIsRefused() async throws {
        let sim = try await Simulation.runOnWallClock(seed: 1) { sim in sim }
        #expect(sim.post {} == false)
    }

    struct Failure: Error, Equatable {}

    @Test("the body's result and its error come back to the caller")
    func resultAndErrorReturn() async throws {
        #expect(try await Simulation.runOnWallClock(seed: 1) { sim in sim.pacing } == .wallClock)
        await #expect(throws: Failure()) {
            try await Simulation.runOnWallClock(seed: 1) { _ -> Int in throw Failure() }
        }
    }

    /// A run that ignored cancellation would hang here: the time limit fails it instead.
    @Test(
        "cancelling the caller cancels the body and ends the run, whatever it was waiting for",
        .timeLimit(.minutes(2)))
    func cancellationEndsTheRun() async throws {
        let sleepEnded = Mutex<RigInstant?>(nil)
        let sleeping = Task {
            try await Simulation.runOnWallClock(seed: 1) { sim in
                defer { sleepEnded.withLock { $0 = sim.now } }
                try await sim.clock.sleep(for: .seconds(3600))
                return "woke"
            }
        }
        let listening = Task {
            try await Simulation.runOnWallClock(seed: 1) { _ in
                let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
                _ = continuation  // nothing is ever sent: only cancellation ends the wait
                for await _ in stream {}
                try Task.checkCancellation()
                return "stream ended"
            }
        }
        try await Task.sleep(for: .milliseconds(100))
        sleeping.cancel()
        listening.cancel()
        for task in [sleeping, listening] {
            await #expect(throws: CancellationError.self) { try await task.value }
        }
        // The sleep ended when it was cancelled, not at its deadline an hour away (the bound leaves room for a
        // loaded machine that is slow to deliver the cancellation).
        let ended = try #require(sleepEnded.withLock { $0 })
        #expect(ended.sinceOrigin < .seconds(600))
    }
}
