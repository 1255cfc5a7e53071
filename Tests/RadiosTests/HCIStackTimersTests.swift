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
