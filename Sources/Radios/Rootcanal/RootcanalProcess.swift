import Foundation

/// A rootcanal (Google's virtual Bluetooth controller farm, PyPI `rootcanal==1.10.0`) that blerig started,
/// or one it attached to.
///
/// ```swift
/// let rootcanal = try await RootcanalProcess.start()      // free ports, 1 ms tick
/// defer { Task { await rootcanal.stop() } }               // or await it at the end
/// let hci = rootcanal.hciSpec                               // "tcp:127.0.0.1:PORT": one controller per connection
/// let topology = try await rootcanal.testChannel.list()
/// ```
///
/// ``start(_:clock:)`` finds the interpreter (``Options/launcher``), picks four free ports, starts
/// `python -m rootcanal` with them under a ``SupervisedProcess`` with ``LoopbackLibrary`` preloaded (rootcanal
/// has no flag for its listen address; the library makes it 127.0.0.1, and the listeners are checked in
/// /proc/net before rootcanal is used: one on another address stops it with an error), and waits until rootcanal's own log says it
/// listens on every one of them (``RootcanalStartupLog``): a port someone else holds is logged as "Address
/// already in use" while rootcanal keeps running, and is answered by a retry on fresh ports (or an error, for
/// ports the caller chose). It then connects the test channel and sets the tick. Every error quotes the end
/// of rootcanal's log, which is kept in memory (bounded) and optionally in a file.
///
/// rootcanal cannot outlive blerig: ``stop()`` ends its whole process group (the Python launcher and the
/// rootcanal binary it runs), and if blerig dies first the lifeline does the same (see ``SupervisedProcess``).
public final class RootcanalProcess: Sendable {
    /// Where the interpreter comes from.
    public enum Launcher: Sendable, Hashable {
        /// The interop venv: `$BLERIG_INTEROP_VENV`, else `.venv-interop/` here or in an ancestor directory
        /// (see ``InteropVenv``); `python -m rootcanal`.
        case interopVenv
        /// `python -m rootcanal` with this interpreter.
        case python(String)
        /// This executable and leading arguments (a rootcanal binary, a wrapper); the port flags are appended.
        case command(String, [String])
    }

    public struct Options: Sendable {
        public var launcher: Launcher = .interopVenv
        /// The ports to serve; nil picks free ones (and retries on fresh ones if one is taken meanwhile).
        public var ports: RootcanalPorts?
        /// rootcanal's tick; nil leaves its default (5 ms). The interop tier runs at 1 ms.
        public var timerPeriod: Duration? = .milliseconds(1)
        /// How long rootcanal may take to listen on all ports, per attempt.
        public var startupTimeout: Duration = .seconds(10)
        /// How many times to start on fresh free ports when one was taken.
        public var attempts = 3
        /// Also write rootcanal's whole log to this file (appended); it is kept in memory, bounded, anyway.
        public var logFile: String?
        /// SIGTERM to SIGKILL on stop.
        public var stopGrace: Duration = .seconds(2)
        /// The library that keeps rootcanal on loopback; nil finds it (``LoopbackLibrary/locate(environment:executable:)``).
        /// Whatever it is, a rootcanal listening beyond loopback is stopped with ``RootcanalError/Code/notLoopback``.
        public var loopback: LoopbackLibrary?
        /// Whether the HCI port sends each packet as one segment with Nagle off (docs/radios.md, "rootcanal's
        /// sockets"). false leaves it as rootcanal sends on its own, each H4 indicator alone with Nagle on, as a
        /// rootcanal started without blerig does: for tests of hosts against one.
        public var wholePackets = true

        public init() {}
    }

    /// The host the ports are on: 127.0.0.1 for a rootcanal blerig started.
    public let host: String
    public let ports: RootcanalPorts
    /// The test channel, connected and greeted.
    public let testChannel: RootcanalTestChannel
    /// The supervised process; nil when attached to a rootcanal started elsewhere.
    public let process: SupervisedProcess?
    /// From spawning to a confirmed test channel with the tick set, across attempts; zero when attached.
    public let startupTime: Duration

    public var hciPort: UInt16 { ports.hci }
    public var testPort: UInt16 { ports.test }
    /// The HCI transport spec for blerig's host and for Bumble peers: `tcp:HOST:PORT`. Each connection to it
    /// is a new controller with its own address.
    public var hciSpec: String { "tcp:\(host):\(ports.hci)" }
    /// rootcanal's log (standard output and error); nil when attached.
    public var log: ProcessOutput? { process?.stdout }

    private init(
        host: String, ports: RootcanalPorts, testChannel: RootcanalTestChannel, process: SupervisedProcess?,
        startupTime: Duration
    ) {
        self.host = host
        self.ports = ports
        self.testChannel = testChannel
        self.process = process
        self.startupTime = startupTime
    }

    /// Starts rootcanal and returns once it serves all its ports and its tick is set.
    public static func start(
        _ options: Options = Options(), clock: some Clock<Duration> = ContinuousClock()
    ) async throws(RootcanalError) -> RootcanalProcess {
        let (executable, leading) = try command(for: options.launcher)
        let loopback: LoopbackLibrary
        if let chosen = options.loopback { loopback = chosen } else { loopback = try LoopbackLibrary.locate() }
        let inherited = loopback.preloading(into: ProcessInfo.processInfo.environment)
        let began = clock.now
        var taken: [String] = []
        for attempt in 1...max(1, options.attempts) {
            let ports: RootcanalPorts
            if let chosen = options.ports { ports = chosen } else { ports = try RootcanalPorts.free() }
            let log: ProcessOutput
            let process: SupervisedProcess
            var environment = inherited
            if options.wholePackets { environment[LoopbackLibrary.h4PortVariable] = String(ports.hci) }
            do {
                log = try ProcessOutput(file: options.logFile)
                process = try SupervisedProcess.start(
                    executable, leading + ports.arguments, environment: environment, stdout: log,
                    grace: options.stopGrace)
            } catch {
                throw RootcanalError(.spawnFailed, "cannot start rootcanal: \(error)", fix: fix(for: options.launcher))
            }
            do throws(RootcanalError) {
                switch try await waitUntilListening(process, ports, options, clock) {
                case .ready:
                    let exposed = LoopbackListeners.current().exposed(on: ports.all)
                    guard exposed.isEmpty else {
                        throw RootcanalError(
                            .notLoopback,
                            "rootcanal listens beyond this host, on \(exposed.map(\.description).joined(separator: ", "))"
                                + "; blerig stopped it",
                            fix: "\(LoopbackLibrary.fileName) (\(loopback.path)) did not take effect: is the rootcanal "
                                + "binary statically linked?")
                    }
                    let channel = try await RootcanalTestChannel.connect(port: ports.test)
                    if let period = options.timerPeriod { try await channel.setTimerPeriod(period) }
                    return RootcanalProcess(
                        host: "127.0.0.1", ports: ports, testChannel: channel, process: process,
                        startupTime: began.duration(to: clock.now))
                case .taken(let inUse):
                    await process.stop(clock: clock)
                    let which = inUse.map { $0 == 0 ? "a port" : "port \($0)" }.joined(separator: ", ")
                    guard options.ports == nil else {
                        throw RootcanalError(
                            .portInUse, "rootcanal cannot serve \(ports): \(which) is in use by another process",
                            fix: "stop whatever holds it, or let blerig pick free ports", log: log.excerpt())
                    }
                    taken.append("attempt \(attempt): \(which) of \(ports)")
                }
            } catch {
                await process.stop(clock: clock)
                var error = error
                if error.log == nil { error.log = log.excerpt() }
                throw error
            }
        }
        throw RootcanalError(
            .portInUse,
            "rootcanal found a port taken on each of \(options.attempts) attempts (\(taken.joined(separator: "; ")))",
            fix: "something on this machine is grabbing ports quickly; retry, or give fixed free ports")
    }

    /// Attaches to a rootcanal someone else started: connects its test channel and, if asked, sets its tick.
    /// ``stop()`` then only closes the test channel. rootcanal serves one test channel client at a time, so
    /// this fails (after `timeout`) while another client holds it.
    public static func attach(
        host: String = "127.0.0.1", ports: RootcanalPorts = .defaults, timerPeriod: Duration? = .milliseconds(1),
        timeout: Duration = .seconds(5)
    ) async throws(RootcanalError) -> RootcanalProcess {
        let channel = try await RootcanalTestChannel.connect(host: host, port: ports.test, timeout: timeout)
        if let timerPeriod { try await channel.setTimerPeriod(timerPeriod) }
        return RootcanalProcess(host: host, ports: ports, testChannel: channel, process: nil, startupTime: .zero)
    }

    /// Closes the test channel and, for a rootcanal blerig started, ends it and everything it started, and
    /// reaps it. Idempotent.
    public func stop() async {
        testChannel.close()
        if let process { await process.stop() }
    }

    private enum Startup { case ready, taken([UInt16]) }

    private static func waitUntilListening(
        _ process: SupervisedProcess, _ ports: RootcanalPorts, _ options: Options, _ clock: some Clock<Duration>
    ) async throws(RootcanalError) -> Startup {
        var startup = RootcanalStartupLog(expecting: ports)
        var cursor = 0
        let deadline = clock.now.advanced(by: options.startupTimeout)
        while true {
            let exit = process.exit
            let (lines, next) = process.stdout.lines(from: cursor)
            cursor = next
            lines.forEach { startup.feed($0) }
            switch startup.status {
            case .ready: return .ready
            case .portsInUse(let inUse): return .taken(inUse)
            case .starting: break
            }
            if let exit {
                throw RootcanalError(
                    .exited, "rootcanal \(exit) while starting (\(process.commandLine))",
                    fix: fix(for: options.launcher))
            }
            guard clock.now < deadline else {
                throw RootcanalError(
                    .startupTimeout,
                    "rootcanal did not confirm ports \(startup.unconfirmed.map(String.init).joined(separator: ", ")) "
                        + "within \(options.startupTimeout) (\(process.commandLine))")
            }
            try? await clock.sleep(for: .milliseconds(5))
        }
    }

    private static func command(for launcher: Launcher) throws(RootcanalError) -> (String, [String]) {
        switch launcher {
        case .interopVenv: (try InteropVenv.locate().python, ["-m", "rootcanal"])
        case .python(let python): (python, ["-m", "rootcanal"])
        case .command(let executable, let arguments): (executable, arguments)
        }
    }

    private static func fix(for launcher: Launcher) -> String {
        switch launcher {
        case .interopVenv, .python: "`\(InteropVenv.installCommand)` installs rootcanal==1.10.0 into the interop venv"
        case .command: "check the rootcanal command"
        }
    }
}
