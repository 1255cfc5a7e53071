import BenchCore
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

    /// While `on`, the reader may let a short packet wait a little for the packet after it, and wake once for both
    /// (the host says when: ``HCIHost/completionsCanWait``); with `atLeast` more bytes than a short packet, it may
    /// wait for that many (the rest of a fragmented ATT response: ``HCIHost/bytesBeforeAnswer``). Called on the
    /// reader thread after each packet it delivered. Transports that cannot do this ignore it.
    func coalesceShortPackets(_ on: Bool, atLeast bytes: Int)
}

extension HCITransport {
    public func coalesceShortPackets(_ on: Bool, atLeast bytes: Int) {}
}
