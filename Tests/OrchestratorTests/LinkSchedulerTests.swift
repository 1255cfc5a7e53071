import Testing

@testable import Orchestrator

/// The scheduler that hands radio links to boards.
@Suite("LinkScheduler")
struct LinkSchedulerTests {
    /// Waits until `count` acquirers are in line.
    static func waitForLine(_ scheduler: LinkScheduler, _ count: Int) async {
        while scheduler.waitingCount < count { await Task.yield() }
    }

    @Test("grants links up to each radio's limit, the least busy radio first")
    func limits() async throws {
        let scheduler = LinkScheduler(limits: [2, 1])
        let a = try #require(await scheduler.acquire())
        let b = try #require(await scheduler.acquire())
        let c = try #require(await scheduler.acquire())
        #expect([a.radio, b.radio, c.radio] == [0, 1, 0])
        #expect(scheduler.inUse == [2, 1])
    }

    @Test("a board that finds every radio full waits, and gets the first link freed")
    func waitsInLine() async throws {
        let scheduler = LinkScheduler(limits: [1])
        let first = try #require(await scheduler.acquire())
        let waiting = Task { await scheduler.acquire() }
        await Self.waitForLine(scheduler, 1)
        #expect(scheduler.inUse == [1])
        scheduler.release(first)
        let granted = await waiting.value
        #expect(granted?.radio == 0)
        #expect(scheduler.inUse == [1])
        scheduler.release(try #require(granted))
        #expect(scheduler.inUse == [0])
    }

    @Test("first come, first served; a board pinned to a busy radio does not hold up one that can use another")
    func fairAndPinned() async throws {
        let scheduler = LinkScheduler(limits: [1, 1])
        let zero = try #require(await scheduler.acquire(allowed: [0]))
        let one = try #require(await scheduler.acquire(allowed: [1]))
        let pinnedToZero = Task { await scheduler.acquire(allowed: [0]) }
        await Self.waitForLine(scheduler, 1)
        let anyRadio = Task { await scheduler.acquire() }
        await Self.waitForLine(scheduler, 2)
        scheduler.release(one)
        // Radio 1 freed: the board pinned to 0 cannot take it; the next in line can.
        #expect(await anyRadio.value?.radio == 1)
        #expect(scheduler.waitingCount == 1)
        scheduler.release(zero)
        #expect(await pinnedToZero.value?.radio == 0)
    }

    @Test("a cancelled wait gives up its place and returns nil")
    func cancelledWait() async throws {
        let scheduler = LinkScheduler(limits: [1])
        let held = try #require(await scheduler.acquire())
        let cancelled = Task { await scheduler.acquire() }
        await Self.waitForLine(scheduler, 1)
        let next = Task { await scheduler.acquire() }
        await Self.waitForLine(scheduler, 2)
        cancelled.cancel()
        #expect(await cancelled.value == nil)
        #expect(scheduler.waitingCount == 1)
        scheduler.release(held)
        #expect(await next.value?.radio == 0)
    }
}
