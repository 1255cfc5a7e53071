/// The system calls a serial port needs, small enough that a test double can drive every path (a port that
/// vanishes mid-read, EBUSY, EACCES, ENOTTY on the modem lines) and record when each modem-line change happened.
/// ``GlibcSerialSystem`` is the real one.
public protocol SerialSystem: Sendable {
    /// open(2) with O_RDWR, O_NOCTTY, O_NONBLOCK and O_CLOEXEC; returns the descriptor.
    func open(_ path: String) throws(SystemCallError) -> Int32
    func close(_ descriptor: Int32)
    /// TIOCEXCL: later opens fail with EBUSY (root's excepted), so no second program steals the board's bytes.
    func claimExclusive(_ descriptor: Int32) throws(SystemCallError)
    /// flock(LOCK_EX | LOCK_NB) on the port itself, for programs that lock the device (blerig's HCI UART does).
    func lockDevice(_ descriptor: Int32) throws(SystemCallError)
    /// Raw mode, 8N1, CLOCAL and CREAD, no flow control, HUPCL as asked, then `baud` through termios2; returns the
    /// speed the driver kept.
    func configure(_ descriptor: Int32, baud: Int, hangUpOnClose: Bool) throws(SystemCallError) -> Int
    /// TIOCMGET.
    func modemLines(_ descriptor: Int32) throws(SystemCallError) -> ModemLines
    /// TIOCMSET: every output line at once.
    func setModemLines(_ descriptor: Int32, _ lines: ModemLines) throws(SystemCallError)
    /// poll(2) for input, at most `timeout`.
    func waitReadable(_ descriptor: Int32, timeout: Duration) throws(SystemCallError) -> Readiness
    /// read(2) of at most `limit` bytes; empty at end of file (the other end hung up); EAGAIN when nothing is there.
    func read(_ descriptor: Int32, limit: Int) throws(SystemCallError) -> [UInt8]
    /// write(2); returns how many bytes were taken (0 when the port would block).
    func write(_ descriptor: Int32, _ bytes: ArraySlice<UInt8>) throws(SystemCallError) -> Int
}

/// What poll(2) said about a port.
public enum Readiness: Sendable, Hashable {
    case readable
    /// POLLHUP, POLLERR or POLLNVAL: the device went away.
    case hungUp
    case timedOut
}
