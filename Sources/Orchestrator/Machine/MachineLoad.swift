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

    /// Reads them now.
    public static var now: MachineLoad {
        let text = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? ""
        let averages = text.split(separator: " ").prefix(3).compactMap { Double($0) }
        return MachineLoad(
            usableCores: affinityCores,
            onlineCores: ProcessInfo.processInfo.processorCount, loadAverages: averages)
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
