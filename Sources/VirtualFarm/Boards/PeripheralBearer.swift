import BLECore

/// One connection as the board at its peripheral end sees it, whatever carries it: a ``PeripheralLink`` on the
/// virtual farm, an HCI connection handle on a real controller. It carries whole ATT PDUs both ways and ends with
/// the HCI reason the board's host is told.
///
/// The board calls these on its simulation's thread only, and the handlers it attaches must be called there too: a
/// radio that reads its controller on another thread hands them over with ``Simulation/post(_:)``.
public protocol PeripheralBearer: AnyObject {
    /// The connection handle.
    var handle: UInt16 { get }

    /// The connection interval in use, when the radio knows it.
    var connectionInterval: Duration? { get }

    /// Attaches the board's handlers: each complete ATT PDU from the central, and the end of the connection with the
    /// reason the board's host is told. Called once, when the board accepts the bearer; a radio keeps what arrives
    /// before then and delivers it after.
    func attach(receive: @escaping ([UInt8]) -> Void, down: @escaping (HCIErrorCode) -> Void)

    /// Queues an ATT PDU for the central.
    func send(_ pdu: [UInt8])

    /// True while the controller has a free transmit buffer: a notification pushed now is queued, not dropped.
    var canSend: Bool { get }

    /// Closes the connection from the board's side: the central is told `reason` (0x13, or 0x15 when powering
    /// off), and the board's `down` handler hears 0x16 once the controller is done.
    func terminate(reason: HCIErrorCode)

    /// The board vanished without a word (power loss, a reset): it hears nothing more on this bearer. On the
    /// modelled air the central notices after its supervision timeout; a real controller, which keeps its power,
    /// ends the connection as best it can.
    func vanish()
}
