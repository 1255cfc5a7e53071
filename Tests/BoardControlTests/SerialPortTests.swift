import BLECore
import BenchCore
import CBoardControl
import Glibc
import Synchronization
import Testing

@testable import BoardControl

/// Against a real pseudo-terminal: the pty's slave side is a tty with termios and a real read/write path.
@Suite("Serial ports on a pty")
struct SerialPortTests {
    /// A pty pair; the master end plays the board.
    final class Pty {
        let master: Int32
        let slavePath: String
        private var slave: Int32

        init() throws {
            var master: Int32 = -1
            var slave: Int32 = -1
            var name = [CChar](repeating: 0, count: 128)
            guard openpty(&master, &slave, &name, nil, nil) == 0 else { throw SystemCallError.current("openpty") }
            self.master = master
            self.slave = slave
            slavePath = String(cString: name)
        }

        func board(_ text: String) {
            let bytes = Array(text.utf8)
            _ = bytes.withUnsafeBytes { write(master, $0.baseAddress, $0.count) }
        }

        /// Closes our own slave descriptor, so the only one left is the port's.
        func dropSlave() {
            if slave >= 0 { close(slave) }
            slave = -1
        }

        func hangUp() { close(master) }

        deinit { dropSlave() }
    }

    /// TIOCGEXCL, `_IOR('T', 0x40, int)` (Linux 3.8), which Glibc does not export to Swift.
    static let tiocgexcl: UInt = 0x8004_5440

    static func environment(_ tree: TemporaryTree) -> SerialEnvironment {
        tree.directory("lock")
        return SerialEnvironment(lockDirectories: [tree.path("lock")])
    }

    @Test func aPortIsRawAtANonStandardBaudWithoutHUPCL() throws {
        let pty = try Pty()
        let tree = TemporaryTree()
        let port = try SerialPort.open(
            pty.slavePath, settings: .init(baud: 250_000), environment: Self.environment(tree))
        defer { port.close() }
        var settings = termios()
        // Read the settings through the port's own descriptor.
        let fd = try #require(FileText.directoryEntries("/proc/self/fd").compactMap { Int32($0) }.first {
            FileText.readLink("/proc/self/fd/\($0)") == pty.slavePath
        })
        var exclusive: Int32 = 0
        #expect(ioctl(fd, Self.tiocgexcl, &exclusive) == 0 && exclusive == 1, "TIOCEXCL refuses later opens")
        #expect(tcgetattr(fd, &settings) == 0)
        #expect(settings.c_cflag & tcflag_t(HUPCL) == 0)
        #expect(settings.c_lflag & tcflag_t(ICANON | ECHO) == 0)
        var input: UInt32 = 0
        var output: UInt32 = 0
        #expect(blerig_get_baud(fd, &input, &output) == 0)
        #expect(output == 250_000 && input == 250_000)
    }

    @Test func readsTimeOutAndLinesComeThroughWhole() throws {
        let pty = try Pty()
        let tree = TemporaryTree()
        let port = try SerialPort.open(pty.slavePath, environment: Self.environment(tree))
        defer { port.close() }
        let started = ContinuousClock.now
        #expect(try port.read(timeout: .milliseconds(50)) == [])
        #expect(started.duration(to: .now) >= .milliseconds(45))
        pty.board("BOOT fw=1.4.2 bank=A reset=EXT boot_id=0000002a\r\nREA")
        var framer = LineFramer()
        var lines: [String] = []
        let deadline = ContinuousClock.now + .seconds(2)
        while lines.count < 1, ContinuousClock.now < deadline {
            lines += framer.feed(try port.read(timeout: .milliseconds(100)))
        }
        #expect(lines == ["BOOT fw=1.4.2 bank=A reset=EXT boot_id=0000002a"])
    }

    @Test func aVanishedPortIsGoneNotAHang() throws {
        let pty = try Pty()
        let tree = TemporaryTree()
        let port = try SerialPort.open(pty.slavePath, environment: Self.environment(tree))
        defer { port.close() }
        pty.hangUp()
        let started = ContinuousClock.now
        let error = #expect(throws: BenchError.self) {
            for _ in 0..<20 { _ = try port.read(timeout: .milliseconds(100)) }
        }
        #expect(error?.code == .gone)
        #expect(error?.message.contains("serial port \(pty.slavePath) went away") == true)
        #expect(started.duration(to: .now) < .seconds(1))
    }

    @Test func aSecondBlerigSeesTheLockFileAndWhoHoldsIt() throws {
        let pty = try Pty()
        let tree = TemporaryTree()
        let environment = Self.environment(tree)
        let port = try SerialPort.open(pty.slavePath, environment: environment)
        let lockFile = tree.path("lock/LCK..\(FileText.lastComponent(pty.slavePath))")
        #expect(port.lockFile == lockFile)
        #expect(FileText.read(lockFile) == PortLock.format(pid: getpid()).dropLast().description)
        // Another process's view: flock is per open file description, so a second open of the lock file conflicts.
        let error = #expect(throws: BenchError.self) { try SerialPort.open(pty.slavePath, environment: environment) }
        #expect(error?.code == .busy)
        #expect(error?.message.contains("is in use by pid \(getpid())") == true)
        #expect(error?.message.contains(lockFile) == true)
        port.close()
        #expect(!FileText.exists(lockFile))
    }

    @Test func aStaleLockFileIsTakenOver() throws {
        let pty = try Pty()
        let tree = TemporaryTree()
        tree.file("lock/LCK..\(FileText.lastComponent(pty.slavePath))", "  99999999")
        let port = try SerialPort.open(pty.slavePath, environment: Self.environment(tree))
        #expect(port.lockFile != nil)
        port.close()
    }

    @Test func aPtyHasNoModemLinesSoTheBoardIsNotReset() throws {
        let pty = try Pty()
        let tree = TemporaryTree()
        let port = try SerialPort.open(pty.slavePath, environment: Self.environment(tree))
        defer { port.close() }
        let error = #expect(throws: BenchError.self) { try port.setModemLines([.rts]) }
        #expect(error?.code == .unsupported)
        #expect(error?.message.contains("the board was NOT reset") == true)
    }

    @Test func typedLinesReachTheBoard() throws {
        let pty = try Pty()
        let tree = TemporaryTree()
        let port = try SerialPort.open(pty.slavePath, environment: Self.environment(tree))
        defer { port.close() }
        try port.write(Array("status\n".utf8))
        var buffer = [UInt8](repeating: 0, count: 64)
        var entry = pollfd(fd: pty.master, events: Int16(POLLIN), revents: 0)
        #expect(poll(&entry, 1, 1000) == 1)
        let count = buffer.withUnsafeMutableBytes { read(pty.master, $0.baseAddress, $0.count) }
        #expect(Array(buffer.prefix(max(0, count))) == Array("status\n".utf8))
    }
}

/// Opening fails with the cause and the fix, driven through a serial system that fails as asked.
@Suite("Serial port errors")
struct SerialPortErrorTests {
    struct FailingSystem: SerialSystem {
        let openError: Int32?
        var configureError: SystemCallError? = nil
        func open(_ path: String) throws(SystemCallError) -> Int32 {
            if let openError { throw SystemCallError("open \(path)", code: openError) }
            return 99
        }
        func close(_ descriptor: Int32) {}
        func claimExclusive(_ descriptor: Int32) throws(SystemCallError) {}
        func lockDevice(_ descriptor: Int32) throws(SystemCallError) {
            if let configureError, configureError.call == "flock" { throw configureError }
        }
        func configure(_ descriptor: Int32, baud: Int, hangUpOnClose: Bool) throws(SystemCallError) -> Int {
            if let configureError, configureError.call != "flock" { throw configureError }
            return baud
        }
        func modemLines(_ descriptor: Int32) throws(SystemCallError) -> ModemLines { [] }
        func setModemLines(_ descriptor: Int32, _ lines: ModemLines) throws(SystemCallError) {}
        func waitReadable(_ descriptor: Int32, timeout: Duration) throws(SystemCallError) -> Readiness { .timedOut }
        func read(_ descriptor: Int32, limit: Int) throws(SystemCallError) -> [UInt8] { [] }
        func write(_ descriptor: Int32, _ bytes: ArraySlice<UInt8>) throws(SystemCallError) -> Int { bytes.count }
    }

    struct NoProcesses: ProcessTable {
        var holders: [Int32] = []
        var currentProcess: Int32 { 1 }
        func isAlive(_ pid: Int32) -> Bool { false }
        func commandLine(_ pid: Int32) -> String? { pid == 4242 ? "minicom -D /dev/ttyACM0" : nil }
        func holders(of device: String) -> [Int32] { holders }
    }

    static let cases: [(Int32?, SystemCallError?, [Int32], BenchError.Code, String)] = [
        (ENOENT, nil, [], .missing, "no serial port /dev/ttyACM7: is the board plugged in and powered?"),
        (EACCES, nil, [], .permission, "install ci/udev/99-blerig.rules"),
        (EBUSY, nil, [4242], .busy, "pid 4242 (minicom -D /dev/ttyACM0) holds it exclusively (TIOCEXCL)"),
        (nil, SystemCallError("flock", code: EWOULDBLOCK), [], .busy, "another program has locked it (flock)"),
        (nil, SystemCallError("TCSETS2", code: EINVAL), [], .unsupported, "cannot run at the baud asked for"),
        (ENXIO, nil, [], .missing, "has no device behind it"),
    ]

    @Test("each failure says what and what to do", arguments: 0..<cases.count)
    func failuresNameThePortAndTheFix(_ index: Int) {
        let (openError, configureError, holders, code, text) = Self.cases[index]
        let environment = SerialEnvironment(
            system: FailingSystem(openError: openError, configureError: configureError),
            processes: NoProcesses(holders: holders), lockDirectories: [])
        let error = #expect(throws: BenchError.self) { try SerialPort.open("/dev/ttyACM7", environment: environment) }
        #expect(error?.code == code)
        #expect(error?.message.contains(text) == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("/dev/ttyACM7") == true)
    }
}
