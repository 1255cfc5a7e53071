import Orchestrator
import Testing

@Suite("the machine line of the benchmarks")
struct MachineLoadTests {
    /// `/proc/stat` as a guest's kernel writes it, read 25 s apart during a `bench hci` run on 2026-11-28.
    static let before = """
        cpu  728999 64 78211 327558 4540 0 8628 23519 0 0
        cpu0 364000 30 39000 163000 2200 0 4300 11700 0 0
        intr 123
        """
    static let after = """
        cpu  731056 64 78727 329791 4540 0 8818 23939 0 0
        cpu0 365000 30 39200 164100 2200 0 4400 11900 0 0
        """

    @Test("the hypervisor's steal over a run is its share of all the CPU time that passed, from the summed cpu line")
    func stealShare() throws {
        let before = try #require(CPUTimes(procStat: Self.before))
        let after = try #require(CPUTimes(procStat: Self.after))
        #expect(before.ticks == [728999, 64, 78211, 327558, 4540, 0, 8628, 23519])
        // 420 of 2057 + 516 + 2233 + 190 + 420 ticks.
        let share = try #require(after.stolenShare(since: before))
        #expect(abs(share - 420.0 / 5416.0) < 1e-12)
        let line = MachineLoad(
            usableCores: 2, onlineCores: 2, loadAverages: [1.06], cpuTimes: after
        ).stealLine(since: MachineLoad(usableCores: 2, onlineCores: 2, loadAverages: [1.06], cpuTimes: before))
        #expect(line == "hypervisor steal 7.8 % of CPU time")
    }

    @Test("no steal column, no cpu line, no time passed or no reading: nothing is claimed")
    func nothingToSay() throws {
        let old = try #require(CPUTimes(procStat: "cpu  100 0 50 1000\n"))
        #expect(old.stolenShare(since: old) == nil)
        #expect(CPUTimes(procStat: "intr 1 2 3\n") == nil)
        let same = try #require(CPUTimes(procStat: Self.before))
        #expect(same.stolenShare(since: same) == nil)
        let unread = MachineLoad(usableCores: 1, onlineCores: 1, loadAverages: [], cpuTimes: nil)
        #expect(unread.stealLine(since: unread) == nil)
    }
}
