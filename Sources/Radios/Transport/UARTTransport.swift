import BenchCore
import BLECore
import Glibc

/// H4 over a serial port (`uart:/dev/ttyACM0@1000000`): a controller running HCI UART firmware (Zephyr's
/// `hci_uart`, Nordic's, an ESP32's), usually with RTS/CTS flow control.
///
/// The port is opened exclusively (flock(2) against cooperating programs, TIOCEXCL against other opens), set to raw
/// mode at the requested rate, and flushed, so the H4 stream starts on a packet boundary.
public final class UARTTransport: DescriptorBackedTransport {
    public typealias FlowControl = HCITransportSpec.FlowControl

    public let path: String
    public let baud: Int
    public let flowControl: FlowControl
    let core: DescriptorTransport

    /// Baud rates and the termios speeds that set them.
    static let speeds: [Int: speed_t] = [
        9600: speed_t(B9600), 19200: speed_t(B19200), 38400: speed_t(B38400), 57600: speed_t(B57600),
        115_200: speed_t(B115200), 230_400: speed_t(B230400), 460_800: speed_t(B460800),
        500_000: speed_t(B500000), 576_000: speed_t(B576000), 921_600: speed_t(B921600),
        1_000_000: speed_t(B1000000), 1_152_000: speed_t(B1152000), 1_500_000: speed_t(B1500000),
        2_000_000: speed_t(B2000000), 2_500_000: speed_t(B2500000), 3_000_000: speed_t(B3000000),
        3_500_000: speed_t(B3500000), 4_000_000: speed_t(B4000000),
    ]

    /// The rates a spec may name.
    public static let baudRates = speeds.keys.sorted()

    public init(
        path: String, baud: Int = HCITransportSpec.defaultBaud, flowControl: FlowControl = .rtsCts
    ) throws(HCITransportError) {
        let spec = HCITransportSpec.uart(path: path, baud: baud, flowControl: flowControl)
        guard let speed = Self.speeds[baud] else {
            let rates = Self.baudRates.map(String.init).joined(separator: ", ")
            throw HCITransportError(
                .invalidSpec, "\(spec): \(baud) is not a baud rate a serial port can be set to (\(rates))")
        }
        self.path = path
        self.baud = baud
        self.flowControl = flowControl
        let descriptor = Glibc.open(path, O_RDWR | O_NOCTTY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { throw Self.openFailed(.current, path: path) }
        do {
            try Self.configure(descriptor, path: path, speed: speed, baud: baud, flowControl: flowControl)
        } catch {
            _ = Glibc.close(descriptor)
            throw error
        }
        let port = "serial port \(path)"
        let gone = HCITransportError(
            .disconnected, "\(port) went away (the device was unplugged, or the other end closed)",
            fix: "plug the controller back in; a USB port may come back under another name (see /dev/serial/by-id/)")
        let flow = flowControl == .none ? "no flow control" : "RTS/CTS flow control"
        core = try DescriptorTransport(
            descriptor: descriptor, description: spec.description,
            behaviour: .init(
                framing: .stream, isSocket: false,
                readFailed: { error in
                    switch error?.code {
                    case nil, EIO, ENXIO, ENODEV: gone
                    case let .some(code): HCITransportError(.io, "reading \(port) failed: \(Errno(code))")
                    }
                },
                writeFailed: { error in
                    [EIO, ENXIO, ENODEV].contains(error.code)
                        ? gone : HCITransportError(.io, "writing to \(port) failed: \(error)")
                },
                framingLost: { error in
                    HCITransportError(
                        .framing, "the controller on \(port) sent bytes that are not H4: \(error)",
                        fix: "check that its firmware speaks HCI over H4 at \(baud) baud with \(flow)")
                },
                writeStalled: flowControl == .none
                    ? HCITransportError(
                        .io, "the controller on \(port) took no bytes for \(DescriptorTransport.writeTimeout)")
                    : HCITransportError(
                        .io, "the controller on \(port) held CTS low for \(DescriptorTransport.writeTimeout)",
                        fix: "check the RTS/CTS wiring, or write \(spec),flow=none if the controller has no CTS line")))
    }

    /// The open port, for tests of its settings.
    var descriptor: Int32 { core.descriptor }


    /// What a failed open(2) of a serial port means, and what to do.
    static func openFailed(_ error: Errno, path: String) -> HCITransportError {
        switch error.code {
        case ENOENT:
            HCITransportError(
                .unavailable, "no such serial port \(path)",
                fix: "is the controller plugged in? `ls /dev/serial/by-id/` lists the serial ports")
        case ENXIO, ENODEV:
            HCITransportError(
                .unavailable, "\(path) has no device behind it: \(error)", fix: "plug the controller back in")
        case EACCES, EPERM:
            HCITransportError(
                .permission, "no permission to open \(path): \(error)",
                fix: "add the user to the dialout group (`sudo usermod -aG dialout $USER`), then log in again")
        case EBUSY, EWOULDBLOCK:
            HCITransportError(
                .busy, "\(path) is in use by another program",
                fix: "close it (a serial monitor, ModemManager, another blerig) and try again")
        default:
            HCITransportError(.io, "cannot open \(path): \(error)")
        }
    }

    /// Sets raw mode, the speed, CLOCAL and CREAD, and CRTSCTS when flow control is on; VMIN 1 and VTIME 0 (poll(2)
    /// does the waiting).
    static func makeRaw(_ settings: inout termios, speed: speed_t, flowControl: FlowControl) {
        cfmakeraw(&settings)
        settings.c_cflag |= tcflag_t(CLOCAL | CREAD)
        if flowControl == .rtsCts {
            settings.c_cflag |= tcflag_t(CRTSCTS)
        } else {
            settings.c_cflag &= ~tcflag_t(CRTSCTS)
        }
        withUnsafeMutableBytes(of: &settings.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        _ = cfsetspeed(&settings, speed)
    }

    /// What the port kept of the settings asked for: tcsetattr(3) succeeds when any of them took, so the
    /// speed and the flow control are read back.
    static func refused(
        _ applied: termios, speed: speed_t, baud: Int, flowControl: FlowControl, path: String
    ) -> HCITransportError? {
        var applied = applied
        if cfgetospeed(&applied) != speed || cfgetispeed(&applied) != speed {
            return HCITransportError(
                .invalidSpec, "\(path) cannot be set to \(baud) baud",
                fix: "use a rate the adapter supports and the controller's firmware expects")
        }
        if flowControl == .rtsCts && applied.c_cflag & tcflag_t(CRTSCTS) == 0 {
            return HCITransportError(
                .invalidSpec, "\(path) does not support RTS/CTS flow control",
                fix: "write ,flow=none after the baud rate if the controller does without it")
        }
        return nil
    }

    private static func configure(
        _ descriptor: Int32, path: String, speed: speed_t, baud: Int, flowControl: FlowControl
    ) throws(HCITransportError) {
        if flock(descriptor, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK {
            throw openFailed(.current, path: path)
        }
        var settings = termios()
        guard tcgetattr(descriptor, &settings) == 0 else {
            let error = Errno.current
            if error.code == ENOTTY { throw HCITransportError(.invalidSpec, "\(path) is not a serial port") }
            throw HCITransportError(.io, "cannot read the settings of \(path): \(error)")
        }
        // Later opens fail with EBUSY (root's excepted): a second program on the port would steal bytes.
        _ = ioctl(descriptor, UInt(TIOCEXCL))
        makeRaw(&settings, speed: speed, flowControl: flowControl)
        guard tcsetattr(descriptor, TCSANOW, &settings) == 0 else {
            throw HCITransportError(.io, "cannot configure \(path): \(Errno.current)")
        }
        var applied = termios()
        guard tcgetattr(descriptor, &applied) == 0 else {
            throw HCITransportError(.io, "cannot read back the settings of \(path): \(Errno.current)")
        }
        if let refusal = refused(applied, speed: speed, baud: baud, flowControl: flowControl, path: path) {
            throw refusal
        }
        // Bytes from before the open would start the stream in the middle of a packet.
        _ = tcflush(descriptor, TCIOFLUSH)
    }
}
