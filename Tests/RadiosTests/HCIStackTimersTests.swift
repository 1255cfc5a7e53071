import BLECore
import Synchronization
import Testing

@testable import Radios

/// The timer thread of an ``HCIStack``: deadlines on a wall clock, an earlier one wakes it, owners drop theirs.
@Suite struct HCIStackTimersTests {
    /// Waits (polling) until `done` or `limit` passes.
    private static func wait(_ limit: Duration, until done: () -> Bool) async {
        let deadline = ContinuousClock.now.advanced(by: limit)
        while !done(), ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(2)) }
    }

    @Test("an early timer added after a late one wakes the thread; both fire in deadline order")
    func anEarlierDeadlineWakesTheThread() async {
        let clock = WallClock()
        let timers = HCIStackTimers(clock: clock) {}
        let fired = Mutex<[(String, RigInstant)]>([])
        let start = clock.now
        timers.add(at: start.advanced(by: .milliseconds(300)), for: .link(1)) {
            fired.withLock { $0.append(("late", clock.now)) }
        }
        timers.add(at: start.advanced(by: .milliseconds(40)), for: .link(2)) {
            fired.withLock { $0.append(("early", clock.now)) }
        }
        await Self.wait(.seconds(3)) { fired.withLock { $0.count } == 2 }
        let order = fired.withLock { $0 }
        #expect(order.map(\.0) == ["early", "late"])
        if order.count == 2 {
            let early = start.duration(to: order[0].1)
            #expect(early >= .milliseconds(40) && early < .milliseconds(280), "fired after \(early)")
            #expect(start.duration(to: order[1].1) >= .milliseconds(300))
        }
        #expect(timers.count == 0)
        timers.stop()
    }

    @Test("a deadline past the thread's next wake costs no signal and still fires on time; a sooner one wakes it")
    func onlySoonerDeadlinesWake() async {
        let clock = WallClock()
        let timers = HCIStackTimers(clock: clock, horizon: .milliseconds(50)) {}
        let fired = Mutex<[(String, RigInstant)]>([])
        let start = clock.now
        // The thread waits at most 50 ms at a time: these two come after any wake it has scheduled.
        timers.add(at: start.advanced(by: .milliseconds(600)), for: .link(1)) {
            fired.withLock { $0.append(("link", clock.now)) }
        }
        timers.hostDeadline(start.advanced(by: .seconds(5)))
        #expect(timers.wokenForDeadlines == 0)
        await Self.wait(.seconds(3)) { fired.withLock { $0.count } == 1 }
        let late = fired.withLock { $0.first?.1 }.map { start.duration(to: $0) }
        #expect(late.map { $0 >= .milliseconds(600) && $0 < .milliseconds(900) } == true, "fired after \(String(describing: late))")
        #expect(timers.wokenForDeadlines == 0)

        // A thread with a long horizon, waiting: a deadline before its wake does wake it.
        let patient = HCIStackTimers(clock: clock, horizon: .seconds(30)) {}
        try? await Task.sleep(for: .milliseconds(20))
        let soon = clock.now
        patient.add(at: soon.advanced(by: .milliseconds(30)), for: .link(2)) {
            fired.withLock { $0.append(("soon", clock.now)) }
        }
        await Self.wait(.seconds(3)) { fired.withLock { $0.count } == 2 }
        let early = fired.withLock { $0.last }.map { ($0.0, soon.duration(to: $0.1)) }
        #expect(early?.0 == "soon")
        #expect(early.map { $0.1 >= .milliseconds(30) && $0.1 < .seconds(2) } == true)
        #expect(patient.wokenForDeadlines == 1)
        timers.stop()
        patient.stop()
    }

    @Test("dropping an owner cancels its timers only; a stopped thread takes no more")
    func droppedOwnersNeverFire() async {
        let clock = WallClock()
        let timers = HCIStackTimers(clock: clock) {}
        let fired = Mutex<[String]>([])
        let soon = clock.now.advanced(by: .milliseconds(30))
        timers.add(at: soon, for: .link(7)) { fired.withLock { $0.append("link") } }
        timers.add(at: soon, for: .attempt(DeviceAddress(0x01))) { fired.withLock { $0.append("attempt") } }
        timers.drop(.link(7))
        await Self.wait(.seconds(2)) { !fired.withLock { $0 }.isEmpty }
        try? await Task.sleep(for: .milliseconds(50))
        #expect(fired.withLock { $0 } == ["attempt"])
        timers.stop()
        #expect(!timers.add(at: clock.now, for: .link(8)) { fired.withLock { $0.append("late") } })
    }

    @Test("the host's deadline is ticked once it is reached, and a sooner one wakes the thread")
    func theHostDeadlineIsTicked() async {
        let clock = WallClock()
        let ticks = Mutex<[RigInstant]>([])
        let timers = HCIStackTimers(clock: clock) { ticks.withLock { $0.append(clock.now) } }
        let start = clock.now
        timers.hostDeadline(start.advanced(by: .seconds(10)))
        timers.hostDeadline(start.advanced(by: .milliseconds(30)))
        await Self.wait(.seconds(3)) { !ticks.withLock { $0 }.isEmpty }
        let first = ticks.withLock { $0.first }
        #expect(first.map { start.duration(to: $0) >= .milliseconds(30) } == true)
        #expect(first.map { start.duration(to: $0) < .seconds(5) } == true)
        timers.stop()
    }
}
