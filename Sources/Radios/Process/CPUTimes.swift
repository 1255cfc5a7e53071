import Glibc

/// CPU time as getrusage(2) splits it: in user space, and in the kernel on the process's behalf (system calls,
/// and the network stack's work done in its context, such as a loopback peer's segments delivered while it sends).
public struct CPUTimes: Sendable, Hashable {
    public var user: Duration
    public var system: Duration

    public init(user: Duration = .zero, system: Duration = .zero) {
        self.user = user
        self.system = system
    }

    public var total: Duration { user + system }

    /// This process's so far, all threads (RUSAGE_SELF).
    public static var process: CPUTimes { of(RUSAGE_SELF.rawValue) }

    /// The calling thread's so far (RUSAGE_THREAD, which Glibc's module leaves out: it is a _GNU_SOURCE name).
    public static var thread: CPUTimes { of(1) }

    private static func of(_ who: Int32) -> CPUTimes {
        var usage = rusage()
        getrusage(who, &usage)
        func duration(_ t: timeval) -> Duration { .seconds(Int64(t.tv_sec)) + .microseconds(Int64(t.tv_usec)) }
        return CPUTimes(user: duration(usage.ru_utime), system: duration(usage.ru_stime))
    }

    public static func - (a: CPUTimes, b: CPUTimes) -> CPUTimes {
        CPUTimes(user: a.user - b.user, system: a.system - b.system)
    }

    public static func + (a: CPUTimes, b: CPUTimes) -> CPUTimes {
        CPUTimes(user: a.user + b.user, system: a.system + b.system)
    }
}

extension Duration {
    /// Whole microseconds, rounded toward zero (getrusage's resolution).
    var wholeMicroseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000 + attoseconds / 1_000_000_000_000
    }
}
