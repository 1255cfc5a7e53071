import Foundation

/// The processes on this machine, from `/proc`: what a supervisor checks before it signals a process group,
/// and what a test checks to prove nothing it started is left.
public enum ProcessTable {
    /// One process, from `/proc/PID/stat`.
    public struct Entry: Sendable, Hashable, CustomStringConvertible {
        public var pid: pid_t
        public var parent: pid_t
        public var group: pid_t
        /// The kernel's state letter: R running, S sleeping, D disk wait, Z zombie, T stopped, …
        public var state: Character
        /// The executable's name as the kernel keeps it (at most 15 characters).
        public var name: String

        /// A zombie has exited and only waits to be reaped: it runs nothing and holds no port or file.
        public var isAlive: Bool { state != "Z" && state != "X" }

        public var description: String { "\(pid) \(name) (state \(state), parent \(parent), group \(group))" }

        /// Parses one `/proc/PID/stat` line: `pid (name) state ppid pgrp …`, where the name may itself hold
        /// spaces and parentheses, so it ends at the last `)`.
        public init?(stat: String) {
            guard let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")"), open < close,
                let pid = pid_t(stat[..<open].trimmingCharacters(in: .whitespaces))
            else { return nil }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count >= 3, let state = fields[0].first, let parent = pid_t(fields[1]),
                let group = pid_t(fields[2])
            else { return nil }
            self.init(
                pid: pid, parent: parent, group: group, state: state,
                name: String(stat[stat.index(after: open)..<close]))
        }

        public init(pid: pid_t, parent: pid_t, group: pid_t, state: Character, name: String) {
            self.pid = pid
            self.parent = parent
            self.group = group
            self.state = state
            self.name = name
        }
    }

    /// Every process visible now. Processes that end while the table is read are left out.
    public static func snapshot() -> [Entry] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return names.compactMap { name in
            guard name.first?.isNumber == true,
                let stat = try? String(contentsOfFile: "/proc/\(name)/stat", encoding: .utf8)
            else { return nil }
            return Entry(stat: stat)
        }
    }

    /// The living processes of process group `group`.
    public static func living(inGroup group: pid_t) -> [Entry] {
        snapshot().filter { $0.group == group && $0.isAlive }
    }

    /// The living descendants of `pid` (children, their children, …), found through parent links. A process
    /// whose parent died was adopted by init and is no longer found this way: check its group too.
    public static func livingDescendants(of pid: pid_t) -> [Entry] {
        let all = snapshot()
        var children: [pid_t: [Entry]] = [:]
        for entry in all { children[entry.parent, default: []].append(entry) }
        var result: [Entry] = []
        var pending = [pid]
        while let next = pending.popLast() {
            for child in children[next] ?? [] where child.pid != pid {
                result.append(child)
                pending.append(child.pid)
            }
        }
        return result.filter(\.isAlive)
    }
}
