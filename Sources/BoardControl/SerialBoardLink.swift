import BLECore
import BenchCore
import Foundation
import Synchronization

/// A real board's serial wiring: its console and its reset lines share one open port. A reader thread frames the
/// console's lines, stamps each with the bench clock and its boot (``BootTracker``), and hands them to the
/// attached handler; when the port goes away (a reset that re-enumerates, a power cycle) it waits for the port to
/// come back under the board's stable name (``PortFollower/stableName(_:opened:)``), stay for a second, and
/// reopens it. Resets play the wiring's sequence on the same port, or do the 1200-baud touch.
public final class SerialBoardLink: BoardConsole, ResetControl, Sendable {
    public let name: SerialPortName
    public let settings: SerialPort.Settings
    public let wiring: ResetWiring
    let environment: SerialEnvironment
    let clock: any RigClock
    private let state: Mutex<State>
    private let stopped = DispatchSemaphore(value: 0)

    private struct State: @unchecked Sendable {
        // @unchecked Sendable: the handlers are @Sendable closures; the rest are values.
        var port: SerialPort?
        var follow: SerialPortName
        var handler: (@Sendable (ConsoleEntry) -> Void)?
        var status: (@Sendable (String) -> Void)?
        var tracker = BootTracker()
        var framer = LineFramer()
        var stopping = false
        var running = false
        /// Set while a reset owns the port (the 1200-baud touch closes it): the reader leaves it alone.
        var suspended = false
        /// A port that appeared after the port went away, and when (monotonic), until it has stayed a second.
        var candidate: (device: String, since: ContinuousClock.Instant)?
        var goneSince: RigInstant?
    }

    /// Opens the port now: a missing, busy or forbidden port is reported here, before anything runs.
    public init(
        name: SerialPortName, settings: SerialPort.Settings, wiring: ResetWiring, clock: any RigClock,
        environment: SerialEnvironment = .host
    ) throws(BenchError) {
        self.name = name
        self.settings = settings
        self.wiring = wiring
        self.clock = clock
        self.environment = environment
        let inventory = SerialPortInventory(paths: environment.paths)
        guard let info = try inventory.find(name) else {
            let known = inventory.ports()
            throw BenchError(
                .missing,
                "no serial port \(name): "
                    + (known.isEmpty
                        ? "this host lists no serial ports at all: plug the board in (and check `dmesg` for its "
                            + "USB serial driver)"
                        : "nothing plugged in answers to that name; the ports here: "
                            + known.map(\.description).joined(separator: "; ")))
        }
        let path: String = if case .path(let path) = name { path } else { info.devicePath }
        let port = try SerialPort.open(path, settings: settings, environment: environment)
        state = Mutex(State(port: port, follow: PortFollower.stableName(name, opened: info)))
    }

    public var description: String {
        state.withLock { $0.port?.description } ?? "\(name) @ \(settings.baud) (not open)"
    }

    /// The port open now, for messages and tests.
    public var openPort: SerialPort? { state.withLock { $0.port } }

    /// Tells `handler` when the port goes away and comes back (`blerig console` prints it).
    public func onStatus(_ handler: @escaping @Sendable (String) -> Void) {
        state.withLock { $0.status = handler }
    }

    // MARK: BoardConsole

    public func attach(_ handler: @escaping @Sendable (ConsoleEntry) -> Void) {
        let start = state.withLock { state -> Bool in
            state.handler = handler
            defer { state.running = true }
            return !state.running
        }
        if start { Thread.detachNewThread { [self] in readLoop() } }
    }

    public func send(_ line: String) async throws(BenchError) {
        guard let port = state.withLock({ $0.port }) else {
            throw BenchError(.gone, "cannot type on the console of \(name): its port is gone and has not come back")
        }
        try port.write(Array((line + "\n").utf8))
    }

    // MARK: ResetControl

    public var kinds: [ResetKind] { wiring.kinds }

    public func reset(_ kind: ResetKind) async throws(BenchError) {
        guard let plan = wiring.plan(for: kind) else {
            throw BenchError(
                .unsupported,
                "serial port \(name) is wired for \(wiring) resets, which cannot do a \(kind) reset (it does "
                    + "\(kinds.isEmpty ? "none" : kinds.map(\.rawValue).joined(separator: ", ")))")
        }
        _ = try await perform(plan)
    }

    /// Plays `plan` on the port; for the touch, returns the bootloader's port if one came up.
    public func perform(_ plan: ResetPlan) async throws(BenchError) -> SerialPortInfo? {
        switch plan {
        case .lines(let sequence):
            guard let port = state.withLock({ $0.port }) else {
                throw BenchError(.gone, "cannot reset through \(name): its port is gone and has not come back")
            }
            try await ResetSequencePlayer(clock: clock).play(sequence, on: port)
            return nil
        case .touch1200:
            let port = state.withLock { state -> SerialPort? in
                state.suspended = true
                defer { state.port = nil }
                return state.port
            }
            defer { state.withLock { $0.suspended = false } }
            port?.close()
            let touch = ArduinoTouch(
                environment: environment, follower: PortFollower(inventory: inventory, clock: clock))
            var path = port?.path
            if path == nil { path = try inventory.find(name)?.devicePath }
            guard let path else { throw BenchError(.missing, "no serial port \(name) to touch at 1200 baud") }
            return try await touch.perform(on: path)
        }
    }

    var inventory: SerialPortInventory { SerialPortInventory(paths: environment.paths) }

    /// Stops the reader and closes the port.
    public func close() {
        let running = state.withLock { state in
            state.stopping = true
            return state.running
        }
        if running { stopped.wait() }
        let port = state.withLock { state in
            defer { state.port = nil }
            return state.port
        }
        port?.close()
    }

    // MARK: The reader thread

    private func readLoop() {
        defer { stopped.signal() }
        while true {
            let (port, stopping, suspended) = state.withLock { ($0.port, $0.stopping, $0.suspended) }
            if stopping { return }
            guard let port, !suspended else {
                if !suspended { reopenIfBack() }
                Thread.sleep(forTimeInterval: 0.05)
                continue
            }
            do {
                let bytes = try port.read(timeout: .milliseconds(100))
                deliver(bytes)
            } catch {
                lost(port, error)
            }
        }
    }

    private func deliver(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        let at = clock.now
        let (entries, handler) = state.withLock { state in
            let lines = state.framer.feed(bytes)
            return (lines.map { state.tracker.entry($0, at: at) }, state.handler)
        }
        for entry in entries { handler?(entry) }
    }

    private func lost(_ port: SerialPort, _ error: BenchError) {
        port.close()
        let at = clock.now
        let (rest, handler, status) = state.withLock { state in
            if state.port === port { state.port = nil }
            state.goneSince = at
            state.candidate = nil
            return (state.framer.flush().map { state.tracker.entry($0, at: at) }, state.handler, state.status)
        }
        if let rest { handler?(rest) }
        status?("\(error.message); waiting for it to come back")
    }

    /// Reopens the port once the board's name stands for a port again that has stayed for a second.
    private func reopenIfBack() {
        let follow = state.withLock { $0.follow }
        guard let info = try? inventory.find(follow), FileText.exists(info.devicePath) else {
            state.withLock { $0.candidate = nil }
            return
        }
        let now = ContinuousClock.now
        let ready = state.withLock { state -> Bool in
            guard let candidate = state.candidate, candidate.device == info.devicePath else {
                state.candidate = (info.devicePath, now)
                return false
            }
            return candidate.since.duration(to: now) >= PortFollower.settle
        }
        guard ready else { return }
        let path: String = if case .path(let path) = follow { path } else { info.devicePath }
        do {
            let port = try SerialPort.open(path, settings: settings, environment: environment)
            let status = state.withLock { state in
                state.port = port
                state.candidate = nil
                return state.status
            }
            status?("serial port back as \(port.description)")
        } catch {
            state.withLock { $0.candidate = nil }
            state.withLock { $0.status }?("serial port \(path) is back but cannot be opened: \(error.message)")
        }
    }
}
