import CBoardControl
import Glibc

/// The real serial system calls.
public struct GlibcSerialSystem: SerialSystem {
    public init() {}

    public func open(_ path: String) throws(SystemCallError) -> Int32 {
        let descriptor = Glibc.open(path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { throw .current("open \(path)") }
        return descriptor
    }

    public func close(_ descriptor: Int32) { _ = Glibc.close(descriptor) }

    public func claimExclusive(_ descriptor: Int32) throws(SystemCallError) {
        guard ioctl(descriptor, UInt(TIOCEXCL)) == 0 else { throw .current("TIOCEXCL") }
    }

    public func lockDevice(_ descriptor: Int32) throws(SystemCallError) {
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else { throw .current("flock") }
    }

    public func configure(_ descriptor: Int32, baud: Int, hangUpOnClose: Bool) throws(SystemCallError) -> Int {
        var settings = termios()
        guard tcgetattr(descriptor, &settings) == 0 else { throw .current("tcgetattr") }
        cfmakeraw(&settings)
        settings.c_cflag |= tcflag_t(CLOCAL | CREAD)
        settings.c_cflag &= ~(tcflag_t(CRTSCTS) | tcflag_t(CSTOPB) | tcflag_t(PARENB))
        if hangUpOnClose {
            settings.c_cflag |= tcflag_t(HUPCL)
        } else {
            settings.c_cflag &= ~tcflag_t(HUPCL)
        }
        settings.c_iflag &= ~(tcflag_t(IXON) | tcflag_t(IXOFF) | tcflag_t(IXANY))
        withUnsafeMutableBytes(of: &settings.c_cc) { cc in
            cc[Int(VMIN)] = 0
            cc[Int(VTIME)] = 0
        }
        guard tcsetattr(descriptor, TCSANOW, &settings) == 0 else { throw .current("tcsetattr") }
        guard blerig_set_baud(descriptor, UInt32(clamping: baud)) == 0 else { throw .current("TCSETS2") }
        var input: UInt32 = 0
        var output: UInt32 = 0
        guard blerig_get_baud(descriptor, &input, &output) == 0 else { throw .current("TCGETS2") }
        return Int(output)
    }

    public func modemLines(_ descriptor: Int32) throws(SystemCallError) -> ModemLines {
        var bits: Int32 = 0
        guard ioctl(descriptor, UInt(TIOCMGET), &bits) == 0 else { throw .current("TIOCMGET") }
        return ModemLines(rawValue: bits)
    }

    public func setModemLines(_ descriptor: Int32, _ lines: ModemLines) throws(SystemCallError) {
        var bits = lines.rawValue
        guard ioctl(descriptor, UInt(TIOCMSET), &bits) == 0 else { throw .current("TIOCMSET") }
    }

    public func waitReadable(_ descriptor: Int32, timeout: Duration) throws(SystemCallError) -> Readiness {
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        let milliseconds = Int32(clamping: max(0, timeout.components.seconds * 1000
            + timeout.components.attoseconds / 1_000_000_000_000_000))
        while true {
            let ready = poll(&entry, 1, milliseconds)
            if ready < 0 {
                if errno == EINTR { continue }
                throw .current("poll")
            }
            if ready == 0 { return .timedOut }
            if entry.revents & Int16(POLLIN) != 0 { return .readable }
            return .hungUp
        }
    }

    public func read(_ descriptor: Int32, limit: Int) throws(SystemCallError) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: limit)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, limit) }
            if count >= 0 { return Array(buffer.prefix(count)) }
            if errno == EINTR { continue }
            throw .current("read")
        }
    }

    public func write(_ descriptor: Int32, _ bytes: ArraySlice<UInt8>) throws(SystemCallError) -> Int {
        while true {
            let count = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if count >= 0 { return count }
            if errno == EINTR { continue }
            if errno == EAGAIN { return 0 }
            throw .current("write")
        }
    }
}
