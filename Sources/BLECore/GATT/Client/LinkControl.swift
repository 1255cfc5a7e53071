/// What a ``GATTClientConnection`` needs from the transport that owns the link, besides the ``ATTBearer`` its
/// requests go through. The transport in turn pushes what arrives into the connection with
/// ``GATTClientConnection/receive(_:)`` and reports the end of the link with ``GATTClientConnection/linkDown(_:)``.
public protocol LinkControl: Sendable {
    /// Asks the transport to close the link from this side (reason 0x16 locally, 0x13 at the peer). It may return
    /// before the link is down; the transport reports the end through ``GATTClientConnection/linkDown(_:)``.
    func disconnect() async

    /// Queues a PDU for transmission at once, without suspending and ahead of any wait for buffer space. The
    /// connection calls it from inside ``GATTClientConnection/receive(_:)``, whatever context that runs in, for the
    /// Handle Value Confirmation that answers an indication (Vol 3 Part F §3.4.7.3) and for its answers to requests
    /// the peer makes in its own client role; these are one PDU per received PDU, so they cannot flood the link.
    /// Once the link is down, drop the PDU.
    func sendImmediately(_ pdu: [UInt8])
}
