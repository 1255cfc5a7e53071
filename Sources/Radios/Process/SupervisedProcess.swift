import Foundation
import Glibc
import Synchronization

/// A child process that cannot outlive its parent: rootcanal, a Bumble peer, anything blerig starts and must
/// not leave behind.
///
/// The command runs under a small bash wrapper (see ``lifelineScript``) that leads a new process group and
/// holds the *lifeline*, a socket whose other end only this object holds. Three ways out, all ending the whole
/// group (grandchildren included):
/// - ``stop(grace:clock:)``: closes the lifeline; the wrapper sends SIGTERM to the group, SIGKILL after the
///   grace period; `stop` itself sends SIGKILL to the group if anything is still alive a second later, then
///   returns once no process of the group is alive and the wrapper is reaped.
/// - This object is released without `stop`: `deinit` closes the lifeline, with the same effect.
/// - The parent dies abruptly (a trap, SIGKILL): the kernel closes the lifeline, with the same effect.
///
/// Standard output and error are read by a thread each into ``ProcessOutput``s (the same one for both when
/// `stderr` is nil), in batches: after each read the thread waits ``readBatchDelay`` for more, so a child that
/// writes a line at a time (rootcanal logs every HCI packet) costs this process a wakeup per batch, not per line.
/// The wrapper is reaped by a thread blocked in `waitpid`. Children inherit no descriptor of
/// the parent but those three, and start with default signal dispositions and an empty signal mask, whatever
/// the parent ignores or blocks.
public final class SupervisedProcess: Sendable {
    /// The wrapper's process id, which is also the process group of the command and all it starts.
    public let pid: pid_t
    /// The command as started, for messages: the executable and its arguments, space-separated.
    public let commandLine: String
    public let stdout: ProcessOutput
    public let stderr: ProcessOutput
    /// How long the wrapper waits after SIGTERM before SIGKILL, when the lifeline closes.
    public let grace: Duration

    private let lifeline: Mutex<Int32?>
    private let reaped: Reaped

    /// Starts `executable` (a path) with `arguments`.
    ///
    /// - Parameters:
    ///   - environment: the child's whole environment (bash adds `PWD`, `SHLVL` and `_`); nil passes this
    ///     process's own. `BASH_ENV` is never passed.
    ///   - stdout: where the command's standard output goes.
    ///   - stderr: where its standard error goes; nil sends it to `stdout` as well.
    ///   - grace: SIGTERM to SIGKILL, when the lifeline closes.
    public static func start(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil,
        stdout: ProcessOutput, stderr: ProcessOutput? = nil, grace: Duration = .seconds(2)
    ) throws(SpawnError) -> SupervisedProcess {
        guard access(executable, X_OK) == 0 else {
            throw SpawnError("cannot run \(executable): \(SpawnError.errno())")
        }
        guard access(bash, X_OK) == 0 else {
            throw SpawnError("cannot supervise \(executable): \(bash) is missing (\(SpawnError.errno()))")
        }
        var opened: [Int32] = []
        defer { for fd in opened { close(fd) } }
        func pair() throws(SpawnError) -> (parent: Int32, child: Int32) {
            var fds: [Int32] = [-1, -1]
            guard socketpair(AF_UNIX, SocketType.stream | SocketType.closeOnExec, 0, &fds) == 0 else {
                throw SpawnError("cannot start \(executable): socketpair failed: \(SpawnError.errno())")
            }
            // A descriptor that is already 0, 1 or 2 would survive adddup2 with its close-on-exec flag set.
            for index in fds.indices where fds[index] <= 2 {
                let moved = fcntl(fds[index], F_DUPFD_CLOEXEC, 3)
                close(fds[index])
                fds[index] = moved
            }
            opened += fds
            guard fds.allSatisfy({ $0 >= 0 }) else {
                throw SpawnError("cannot start \(executable): \(SpawnError.errno())")
            }
            return (fds[0], fds[1])
        }
        let life = try pair()
        let out = try pair()
        let err = stderr == nil ? nil : try pair()

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, life.child, STDIN_FILENO)
        posix_spawn_file_actions_adddup2(&actions, out.child, STDOUT_FILENO)
        posix_spawn_file_actions_adddup2(&actions, err?.child ?? out.child, STDERR_FILENO)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setpgroup(&attributes, 0)
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGHUP, SIGINT, SIGQUIT, SIGPIPE, SIGALRM, SIGTERM, SIGUSR1, SIGUSR2, SIGCHLD] {
            sigaddset(&defaults, signal)
        }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(
            &attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let graceTicks = String(max(1, Int(grace / .milliseconds(10))))
        // --norc: bash reads ~/.bashrc when its stdin is a socket (it takes itself for an rshd session), and
        // the lifeline is one. BASH_ENV would name a file every non-interactive bash runs first.
        let argv =
            [bash, "--norc", "--noprofile", "-c", lifelineScript, "blerig-lifeline", graceTicks, executable]
            + arguments
        var envp = environment ?? ProcessInfo.processInfo.environment
        envp["BASH_ENV"] = nil
        let cArgv = argv.map { strdup($0) } + [nil]
        let cEnvp = envp.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            cArgv.forEach { free($0) }
            cEnvp.forEach { free($0) }
        }
        var pid = pid_t()
        let spawned = posix_spawn(&pid, bash, &actions, &attributes, cArgv, cEnvp)
        guard spawned == 0 else {
            throw SpawnError("cannot start \(executable): posix_spawn failed: \(SpawnError.errno(spawned))")
        }
        // The parent keeps its ends; the children's ends are closed by the deferred cleanup.
        opened.removeAll { [life.parent, out.parent, err?.parent].contains($0) }
        let stderr = stderr ?? stdout
        read(out.parent, into: stdout, name: "stdout of \(pid)")
        if let err { read(err.parent, into: stderr, name: "stderr of \(pid)") }
        return SupervisedProcess(
            pid: pid, commandLine: ([executable] + arguments).joined(separator: " "), stdout: stdout,
            stderr: stderr, grace: grace, lifeline: life.parent)
    }

    private init(
        pid: pid_t, commandLine: String, stdout: ProcessOutput, stderr: ProcessOutput, grace: Duration,
        lifeline: Int32
    ) {
        self.pid = pid
        self.commandLine = commandLine
        self.stdout = stdout
        self.stderr = stderr
        self.grace = grace
        self.lifeline = Mutex(lifeline)
        self.reaped = Reaped()
        let reaped = reaped
        let thread = Thread {
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 {
                guard errno == EINTR else {
                    reaped.record(.signalled(SIGKILL))
                    return
                }
            }
            reaped.record(ProcessExit(wrapperStatus: status))
        }
        thread.name = "blerig waitpid \(pid)"
        thread.start()
    }

    deinit { closeLifeline() }

    /// How the command ended, once it has; nil while it runs. A command ended by signal N reports
    /// `.signalled(N)`; the wrapper ended by its own teardown reports `.signalled(SIGKILL)`.
    public var exit: ProcessExit? { reaped.exit }

    /// Calls `handler` once, on the reaping thread, when the command has ended (at once if it already has): the
    /// moment a supervisor learns that a process it depends on died, not at its next use. Ending it with
    /// ``stop(clock:)`` calls it too.
    public func whenExited(_ handler: @escaping @Sendable (ProcessExit) -> Void) {
        reaped.whenRecorded(handler)
    }

    /// The processes of this one's group that are still alive (zombies are dead): the wrapper, the command and
    /// whatever it started. Empty once everything is gone.
    public var livingProcesses: [ProcessTable.Entry] { ProcessTable.living(inGroup: pid) }

    /// Waits until the command has ended or `timeout` has passed; returns how it ended, or nil on timeout.
    public func waitForExit(
        timeout: Duration, clock: some Clock<Duration> = ContinuousClock()
    ) async -> ProcessExit? {
        let deadline = clock.now.advanced(by: timeout)
        while clock.now < deadline {
            if let exit { return exit }
            try? await clock.sleep(for: .milliseconds(5))
        }
        return exit
    }

    /// Ends the command and everything it started, and reaps it. Idempotent; safe to call after it ended.
    /// Returns how the command ended (`.signalled(SIGKILL)` when the teardown had to kill it).
    @discardableResult
    public func stop(clock: some Clock<Duration> = ContinuousClock()) async -> ProcessExit {
        closeLifeline()
        let start = clock.now
        var killed = false
        while true {
            let living = livingProcesses
            if living.isEmpty, let exit { return exit }
            let waited = start.duration(to: clock.now)
            if !killed, waited > grace + .seconds(1), !living.isEmpty {
                kill(-pid, SIGKILL)
                killed = true
            }
            if waited > grace + .seconds(5) { return exit ?? .signalled(SIGKILL) }
            try? await clock.sleep(for: .milliseconds(10))
        }
    }

    private func closeLifeline() {
        lifeline.withLock { fd in
            if let open = fd { close(open) }
            fd = nil
        }
    }

    private static let bash = "/bin/bash"

    /// How long a reader thread lets a child's output gather after each read: what the child writes reaches its
    /// ``ProcessOutput`` at most this much later. Without it a chatty child costs a read and a thread wakeup per
    /// line: rootcanal writes about 40 lines per connection handshake and 20 per notification it carries.
    public static let readBatchDelay: Duration = .milliseconds(10)

    /// The CPU time this process has spent reading its supervised children's output, all children together, so
    /// far: work a measurement of this process's own CPU may want to leave out (a benchmark that runs rootcanal
    /// beside the code it measures). Each reader thread adds its own CPU time after every batch.
    public static var outputReadingCPU: Duration { .nanoseconds(outputReadingNanoseconds.load(ordering: .relaxed)) }

    private static let outputReadingNanoseconds = Atomic<Int64>(0)

    /// Reads `fd` until end-of-file on a thread of its own, into `output`, in batches (see ``readBatchDelay``; a
    /// read that fills the buffer is followed by the next at once); closes `fd` at the end.
    private static func read(_ fd: Int32, into output: ProcessOutput, name: String) {
        let thread = Thread {
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 1)
            var counted: Int64 = 0
            func account() {
                let used = threadCPUNanoseconds()
                outputReadingNanoseconds.add(used - counted, ordering: .relaxed)
                counted = used
            }
            defer {
                buffer.deallocate()
                close(fd)
                output.finish()
                account()
            }
            while true {
                let count = Glibc.read(fd, buffer.baseAddress, buffer.count)
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { return }
                output.append(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
                account()
                if count < buffer.count { pause(readBatchDelay) }
            }
        }
        thread.name = "blerig \(name)"
        thread.start()
    }
}

/// The calling thread's CPU time so far (CLOCK_THREAD_CPUTIME_ID), in nanoseconds.
private func threadCPUNanoseconds() -> Int64 {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
}

/// Sleeps the calling thread for `duration` (nanosleep; a signal cuts it short, which only makes the batch smaller).
private func pause(_ duration: Duration) {
    let (seconds, attoseconds) = duration.components
    var request = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
    nanosleep(&request, nil)
}

/// The wrapper's exit, set once by the thread that reaped it, and who wants to hear of it.
private final class Reaped: Sendable {
    private struct State {
        var exit: ProcessExit?
        var handlers: [@Sendable (ProcessExit) -> Void] = []
    }

    private let state = Mutex(State())
    var exit: ProcessExit? { state.withLock { $0.exit } }

    func record(_ exit: ProcessExit) {
        let handlers = state.withLock { state in
            state.exit = exit
            defer { state.handlers = [] }
            return state.handlers
        }
        for handler in handlers { handler(exit) }
    }

    func whenRecorded(_ handler: @escaping @Sendable (ProcessExit) -> Void) {
        let exit = state.withLock { state -> ProcessExit? in
            if state.exit == nil { state.handlers.append(handler) }
            return state.exit
        }
        if let exit { handler(exit) }
    }
}

extension ProcessExit {
    /// The wrapper exits with its command's status, which bash gives as 128 + N for a command ended by signal N.
    init(wrapperStatus status: Int32) {
        let exit = ProcessExit(waitStatus: status)
        if case .exited(let code) = exit, code > 128, code < 128 + 65 {
            self = .signalled(code - 128)
        } else {
            self = exit
        }
    }
}
