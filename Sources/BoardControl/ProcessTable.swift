import Glibc

/// What board control asks about other processes: whether one lives, what it runs, and which hold a device open,
/// so that "busy" says who holds the port. ``ProcFS`` reads the real `/proc`.
public protocol ProcessTable: Sendable {
    var currentProcess: Int32 { get }
    func isAlive(_ pid: Int32) -> Bool
    /// The command line with spaces between its arguments, `blerig console esp-01`; nil when it cannot be read.
    func commandLine(_ pid: Int32) -> String?
    /// The processes that hold `device` open (its resolved path), as far as this process may look.
    func holders(of device: String) -> [Int32]
}

extension ProcessTable {
    /// `pid 1234 (blerig console esp-01)`.
    func describe(_ pid: Int32) -> String {
        commandLine(pid).map { "pid \(pid) (\($0))" } ?? "pid \(pid)"
    }
}

/// The process table under a `/proc` directory.
public struct ProcFS: ProcessTable {
    public let root: String

    public init(root: String = "/proc") { self.root = root }

    public var currentProcess: Int32 { getpid() }

    public func isAlive(_ pid: Int32) -> Bool {
        guard pid > 0 else { return false }
        return kill(pid, 0) == 0 || errno == EPERM
    }

    public func commandLine(_ pid: Int32) -> String? {
        guard let bytes = FileText.readBytes("\(root)/\(pid)/cmdline"), !bytes.isEmpty else { return nil }
        let parts = bytes.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
        guard let first = parts.first else { return nil }
        let program = first.split(separator: "/").last.map(String.init) ?? first
        return ([program] + parts.dropFirst()).joined(separator: " ")
    }

    public func holders(of device: String) -> [Int32] {
        var found: [Int32] = []
        for entry in FileText.directoryEntries(root) {
            guard let pid = Int32(entry) else { continue }
            let directory = "\(root)/\(entry)/fd"
            for fd in FileText.directoryEntries(directory) where FileText.readLink("\(directory)/\(fd)") == device {
                found.append(pid)
                break
            }
        }
        return found.sorted()
    }
}
