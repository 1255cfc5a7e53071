import Glibc
import Testing

@testable import Radios

@Suite struct CPUTimesTests {
    /// Runs `work` on this thread until the thread has used `cpu` more CPU time; returns what it used.
    private func spend(_ cpu: Duration, _ work: () -> Void) -> CPUTimes {
        let before = CPUTimes.thread
        while (CPUTimes.thread - before).total < cpu { for _ in 0..<1000 { work() } }
        return CPUTimes.thread - before
    }

    @Test("a thread making system calls is charged system time, one computing is charged user time")
    func splitFollowsTheWork() throws {
        let null = open("/dev/null", O_WRONLY)
        try #require(null >= 0)
        defer { close(null) }
        var byte: UInt8 = 0
        // Linux splits a thread's time by sampling at its timer tick (4 ms at 250 Hz): 200 ms is 50 samples.
        let writing = spend(.milliseconds(200)) { _ = write(null, &byte, 1) }
        var sum: UInt64 = 0
        let computing = spend(.milliseconds(200)) {
            for value in 0..<UInt64(100) { sum = sum &* 6_364_136_223_846_793_005 &+ value }
        }
        #expect(writing.system > writing.user, "writing: \(writing)")
        #expect(computing.user > computing.system, "computing: \(computing)")
        #expect(sum != 1)
    }

    @Test("the process's times include a thread's, and differences subtract each part")
    func processAndArithmetic() {
        let process = CPUTimes.process
        let thread = CPUTimes.thread
        #expect(process.total >= thread.total)
        let a = CPUTimes(user: .milliseconds(5), system: .milliseconds(3))
        let b = CPUTimes(user: .milliseconds(2), system: .milliseconds(1))
        #expect(a - b == CPUTimes(user: .milliseconds(3), system: .milliseconds(2)))
        #expect((a + b).total == .milliseconds(11))
        #expect(Duration.seconds(2).wholeMicroseconds == 2_000_000)
        #expect((Duration.microseconds(7) + .nanoseconds(999)).wholeMicroseconds == 7)
    }
}
