import BenchCore
import Glibc
import Synchronization

/// One open serial port: raw mode at any baud, exclusive (TIOCEXCL, flock on the port, and a lock file another
/// blerig sees), HUPCL cleared unless asked for, so opening or closing it never moves DTR and RTS and so never
/// resets an ESP32. Reads wait with a timeout; a port that goes away is a ``BenchError`` with code `.gone`,
/// never a hang.
///
/// Reads come from one thread at a time (the console's reader); writes and modem-line changes may come from any
/// task; ``close()`` is called once nothing reads any more.
public final class SerialPort: Sendable {
    public struct Settings: Sendable, Hashable {
        public var baud: Int
        /// HUPCL: drop DTR and RTS on the last close. Off by default: on an ESP32 DevKit that is a reset.
        public var hangUpOnClose: Bool

        public init(baud: Int = 115_200, hangUpOnClose: Bool = false) {
            self.baud = baud
            self.hangUpOnClose = hangUpOnClose
        }
    }

    /// The path as given (`/dev/serial/by-id/...`).
    public let path: String
    /// The device it resolved to (`/dev/ttyACM0`).
    public let device: String
    public let settings: Settings
    let system: any SerialSystem
    private let state: Mutex<State>

    private struct State: Sendable {
        var descriptor: Int32?
        var lock: PortLock?
    }

    /// Opens and configures `path`. Errors say what is wrong and what to do (see ``SerialPort/openFailure``).
    public static func open(
        _ path: String, settings: Settings = Settings(), environment: SerialEnvironment = .host
    ) throws(BenchError) -> SerialPort {
        let device = FileText.resolve(path) ?? path
        let system = environment.system
        let lock: PortLock?
        do {
            lock = try PortLock.acquire(
                device: device, directories: environment.lockDirectories, processes: environment.processes)
        } catch {
            throw Self.lockFailure(error, path: path)
        }
        let descriptor: Int32
        do { descriptor = try system.open(device) } catch {
            lock?.release()
            throw Self.openFailure(error, path: path, device: device, processes: environment.processes)
        }
        do throws(SystemCallError) {
            try system.lockDevice(descriptor)
            try system.claimExclusive(descriptor)
            let applied = try system.configure(descriptor, baud: settings.baud, hangUpOnClose: settings.hangUpOnClose)
            if abs(applied - settings.baud) * 100 > settings.baud * 2 {
                throw SystemCallError("TCSETS2 \(settings.baud) baud (the driver set \(applied))", code: 22)
            }
            try releaseLines(descriptor, system: system)
        } catch {
            system.close(descriptor)
            lock?.release()
            throw Self.configureFailure(error, path: path, device: device, processes: environment.processes)
        }
        return SerialPort(
            path: path, device: device, settings: settings, system: system, descriptor: descriptor, lock: lock)
    }

    /// The kernel raises DTR and RTS when a tty is opened (`tty_port_block_til_ready`), whatever HUPCL says: release
    /// both in one TIOCMSET, as idf.py monitor does (pyserial's `dtr = False, rts = False` before open). On an ESP32
    /// DevKit's transistor pair neither state resets the chip, but a reset sequence must start from the lines
    /// released (esptool's `R1|W0.1|R0` with DTR still up does nothing there), and a board with RTS wired straight
    /// to EN would stay in reset while the port is open. A port without modem lines (a pty) has nothing to release.
    private static func releaseLines(_ descriptor: Int32, system: any SerialSystem) throws(SystemCallError) {
        let lines: ModemLines
        do { lines = try system.modemLines(descriptor) } catch {
            if error.code == ENOTTY || error.code == EINVAL { return }
            throw error
        }
        guard lines.dtrOn || lines.rtsOn else { return }
        try system.setModemLines(descriptor, lines.subtracting([.dtr, .rts]))
    }

    private init(
        path: String, device: String, settings: Settings, system: any SerialSystem, descriptor: Int32,
        lock: PortLock?
    ) {
        self.path = path
        self.device = device
        self.settings = settings
        self.system = system
        state = Mutex(State(descriptor: descriptor, lock: lock))
    }

    /// `/dev/ttyACM0 @ 115200` (with the by-id name when it was opened through one).
    public var description: String {
        path == device ? "\(device) @ \(settings.baud)" : "\(path) (\(device)) @ \(settings.baud)"
    }

    /// The lock file held while the port is open, if a lock directory was writable.
    public var lockFile: String? { state.withLock { $0.lock?.path } }

    private func descriptor() throws(BenchError) -> Int32 {
        guard let descriptor = state.withLock({ $0.descriptor }) else {
            throw BenchError(.io, "\(path) is closed")
        }
        return descriptor
    }

    /// Waits at most `timeout` for bytes; returns what arrived, or nothing when the wait timed out.
    public func read(timeout: Duration, limit: Int = 4096) throws(BenchError) -> [UInt8] {
        let descriptor = try descriptor()
        let readiness: Readiness
        do { readiness = try system.waitReadable(descriptor, timeout: timeout) } catch {
            throw failure(error, doing: "waiting for")
        }
        switch readiness {
        case .timedOut: return []
        case .hungUp: throw gone("the port hung up")
        case .readable: break
        }
        let bytes: [UInt8]
        do { bytes = try system.read(descriptor, limit: limit) } catch {
            if error.code == EAGAIN { return [] }  // poll woke without data
            throw failure(error, doing: "reading")
        }
        if bytes.isEmpty { throw gone("end of file") }
        return bytes
    }

    /// Writes every byte, waiting while the port's buffer is full (at most `timeout` in all).
    public func write(_ bytes: [UInt8], timeout: Duration = .seconds(2)) throws(BenchError) {
        let descriptor = try descriptor()
        var offset = 0
        let deadline = ContinuousClock.now + timeout
        while offset < bytes.count {
            let written: Int
            do { written = try system.write(descriptor, bytes[offset...]) } catch {
                throw failure(error, doing: "writing to")
            }
            offset += written
            if written == 0 {
                guard ContinuousClock.now < deadline else {
                    throw BenchError(
                        .io, "\(path) took no bytes for \(timeout) (flow control held, or the device stalled)")
                }
                usleep(2_000)
            }
        }
    }

    public func modemLines() throws(BenchError) -> ModemLines {
        let descriptor = try descriptor()
        do { return try system.modemLines(descriptor) } catch { throw modemFailure(error) }
    }

    public func setModemLines(_ lines: ModemLines) throws(BenchError) {
        let descriptor = try descriptor()
        do { try system.setModemLines(descriptor, lines) } catch { throw modemFailure(error) }
    }

    /// Closes the port and frees its lock. Closing twice does nothing.
    public func close() {
        let (descriptor, lock) = state.withLock { state in
            defer { state = State(descriptor: nil, lock: nil) }
            return (state.descriptor, state.lock)
        }
        if let descriptor { system.close(descriptor) }
        lock?.release()
    }

    deinit { close() }
}
