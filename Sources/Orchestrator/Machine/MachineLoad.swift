import Foundation

/// What the machine was doing while a benchmark ran, for the line every `blerig bench` command prints with its
/// numbers: the cores this process may use, the cores the machine has, and the load averages (`/proc/loadavg`).
public struct MachineLoad: Sendable, Hashable {
    /// Cores this process may run on (its affinity mask, as `taskset` sets it).
    public var usableCores: Int
    /// Cores the machine has online.
    public var onlineCores: Int
    /// The 1, 5 and 15 minute load averages; empty where `/proc/loadavg` cannot be read.
    public var loadAverages: [Double]
    /// The machine's CPU time so far, by kind; nil where `/proc/stat` cannot be read.
    public var cpuTimes: CPUTimes?

    public init(usableCores: Int, onlineCores: Int, loadAverages: [Double], cpuTimes: CPUTimes? = nil) {
        self.usableCores = usableCores
        self.onlineCores = onlineCores
        self.loadAverages = loadAverages
        self.cpuTimes = cpuTimes
    }

    /// Reads them now.
    public static var now: MachineLoad {
        let text = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? ""
        let averages = text.split(separator: " ").prefix(3).compactMap { Double($0) }
        return MachineLoad(
            usableCores: affinityCores,
            onlineCores: ProcessInfo.processInfo.processorCount, loadAverages: averages,
            cpuTimes: (try? String(contentsOfFile: "/proc/stat", encoding: .utf8)).flatMap(CPUTimes.init(procStat:)))
    }

    /// `hypervisor steal 8.1 % of CPU time`: the share of the machine's CPU time from `earlier` to this reading that
    /// the hypervisor gave to other guests, when this is a guest that counts it. On a shared host that takes a few per
    /// cent from a benchmark's run, every figure of the run is slower and noisier; nil where the kernel does not say.
    public func stealLine(since earlier: MachineLoad) -> String? {
        guard let now = cpuTimes, let then = earlier.cpuTimes, let share = now.stolenShare(since: then) else {
            return nil
        }
        return "hypervisor steal \(String(format: "%.1f", share * 100)) % of CPU time"
    }

    /// The cores in this process's affinity mask (`taskset -c 0` gives 1); Foundation's `activeProcessorCount`
    /// counts every online core whatever the mask.
    public static var affinityCores: Int {
        // `Cpus_allowed:` in /proc/self/status is the mask as hex words (`ffffffff,ffffffff` on many cores).
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Cpus_allowed:") }) else {
            return ProcessInfo.processInfo.activeProcessorCount
        }
        let mask = line.dropFirst("Cpus_allowed:".count).filter { $0 != "," && !$0.isWhitespace }
        let count = mask.reduce(0) { $0 + (Int(String($1), radix: 16)?.nonzeroBitCount ?? 0) }
        return count > 0 ? count : ProcessInfo.processInfo.activeProcessorCount
    }

    /// `machine: 2 of 2 cores usable, load average 3.10 2.50 1.90`
    public var line: String {
        let load =
            loadAverages.isEmpty
            ? "load average unknown" : "load average " + loadAverages.map { String(format: "%.2f", $0) }.joined(separator: " ")
        return "machine: \(usableCores) of \(onlineCores) cores usable, \(load)"
    }
}

/// The machine's CPU time by kind since boot, in clock ticks, from the `cpu` line of `/proc/stat`.
public struct CPUTimes: Sendable, Hashable {
    /// user, nice, system, idle, iowait, irq, softirq and steal, as many as the kernel gives (steal since Linux
    /// 2.6.11). The guest columns after them are left out: they are counted in user and nice already.
    public var ticks: [UInt64]

    /// Parses the `cpu` line (the sum over all cores) of `/proc/stat`'s text; nil when there is none.
    public init?(procStat text: String) {
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("cpu ") }) else { return nil }
        let fields = line.split(separator: " ").dropFirst().prefix(8).compactMap { UInt64($0) }
        guard fields.count >= 4 else { return nil }
        ticks = fields
    }

    /// The share of all CPU time from `earlier` to this reading that was stolen; nil without a steal column or when
    /// no time passed.
    public func stolenShare(since earlier: CPUTimes) -> Double? {
        guard ticks.count >= 8, earlier.ticks.count >= 8 else { return nil }
        let elapsed = zip(ticks, earlier.ticks).map { $0 >= $1 ? $0 - $1 : 0 }
        let total = elapsed.reduce(0, +)
        guard total > 0 else { return nil }
        return Double(elapsed[7]) / Double(total)
    }
}
