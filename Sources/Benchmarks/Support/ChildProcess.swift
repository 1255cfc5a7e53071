import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What one child process cost, from `wait4(2)`'s resource usage: the same numbers `/usr/bin/time -v` prints.
public struct ProcessCost: Sendable, Hashable {
    public var wall: Duration
    public var userCPU: Duration
    public var systemCPU: Duration
    /// The largest resident set the process reached.
    public var peakRSSBytes: Int
    /// The exit status, or 128 + the signal that ended it.
    public var status: Int32

    public var cpu: Duration { userCPU + systemCPU }
}

/// Runs programs as child processes and measures them.
public enum ChildProcess {
    /// Runs `executable` with `arguments`, its standard output and error going to `log` (a file path), and waits
    /// for it. With `cores`, the child may run only on the first that many cores (`taskset -c 0-(n−1)`, which
    /// execs the program in the same process, so the numbers stay the program's).
    public static func measure(
        _ executable: String, _ arguments: [String], log: String, cores: Int? = nil
    ) throws -> ProcessCost {
        if let cores {
            guard let taskset = ["/usr/bin/taskset", "/bin/taskset"].first(where: FileManager.default.isExecutableFile)
            else { throw BenchmarkError("pinning to \(cores) core(s) needs taskset (util-linux), which is missing") }
            return try measure(taskset, ["-c", "0-\(cores - 1)", executable] + arguments, log: log)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let clock = ContinuousClock()
        let start = clock.now
        var pid = pid_t()
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, environ)
        guard spawned == 0 else {
            throw BenchmarkError("cannot start \(executable): \(String(cString: strerror(spawned)))")
        }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 {
            guard errno == EINTR else {
                throw BenchmarkError("waiting for \(executable): \(String(cString: strerror(errno)))")
            }
        }
        let wall = start.duration(to: clock.now)
        func duration(_ t: timeval) -> Duration { .seconds(Int64(t.tv_sec)) + .microseconds(Int64(t.tv_usec)) }
        let exited = status & 0x7F == 0
        return ProcessCost(
            wall: wall, userCPU: duration(usage.ru_utime), systemCPU: duration(usage.ru_stime),
            peakRSSBytes: Int(usage.ru_maxrss) * 1024,
            status: exited ? (status >> 8) & 0xFF : 128 + (status & 0x7F))
    }

    /// This program's own executable.
    public static var currentExecutable: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }
}

/// A benchmark that could not run, in one line.
public struct BenchmarkError: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
