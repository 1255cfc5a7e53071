import BLECore

/// A byte pipe to one HCI controller carrying H4 packets: a TCP socket to rootcanal, a UART to a serial HCI
/// controller, or the BlueZ HCI user channel. The host above it is the same for all three.
///
/// Packets from the controller are delivered on the transport's own reader thread, in order, one call at a
/// time, as soon as each is complete: the host handles them synchronously there, so a response reaches the
/// waiting task without a hop through another queue.
public protocol HCITransport: AnyObject, Sendable, CustomStringConvertible {
    /// What the transport is, for messages and reports: `tcp:127.0.0.1:6402`, `uart:/dev/ttyACM0@1000000`,
    /// `hci-user:0`.
    var description: String { get }

    /// Starts the reader thread. `packet` receives each complete packet from the controller; `closed` is called
    /// once, last, when the transport ends: nil after ``close()``, an error when the controller went away or
    /// sent bytes that are not H4. Call once.
    func start(
        packet: @escaping @Sendable (HCI.H4Packet) -> Void,
        closed: @escaping @Sendable (HCITransportError?) -> Void
    )

    /// Writes one packet whole (the H4 indicator, then the packet). Safe from any thread; concurrent sends do
    /// not interleave. Throws once the transport is closed or failed.
    func send(_ packet: HCI.H4Packet) throws(HCITransportError)

    /// Closes the transport and stops the reader thread; `closed(nil)` follows unless the transport had
    /// already failed. Idempotent.
    func close()
}

/// Why a transport could not be opened, or stopped working. `message` says what happened and where;
/// `fix` says what the user can do about it, when there is something to do.
public struct HCITransportError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable {
        /// The spec does not parse (`tcp:host` without a port, an unknown scheme).
        case invalidSpec
        /// The kernel has no Bluetooth (EAFNOSUPPORT), the adapter does not exist, or the serial port is missing.
        case unavailable
        /// The adapter or port is in use by someone else (bluetoothd, another blerig).
        case busy
        /// The process lacks a permission (CAP_NET_ADMIN for the user channel, the dialout group for a UART).
        case permission
        /// The controller closed the connection or the device vanished.
        case disconnected
        /// The byte stream is not H4: framing is lost.
        case framing
        /// Any other system-call failure, with its errno text.
        case io
    }

    public var code: Code
    public var message: String
    public var fix: String?

    public init(_ code: Code, _ message: String, fix: String? = nil) {
        self.code = code
        self.message = message
        self.fix = fix
    }

    public var description: String { fix.map { "\(message) (\($0))" } ?? message }
}
