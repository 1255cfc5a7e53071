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

    /// Runs `action` once, from any context, when the transport's clock reaches `deadline` (or a little after), and
    /// returns true; or returns false when the transport keeps no timers, as by default. The connection uses it for
    /// the ATT transaction timeout (Vol 3 Part F §3.3.3): it keeps one timer armed while requests are outstanding,
    /// set for the deadline of the request that armed it, and re-arms it for the outstanding request's deadline when
    /// it fires early. Without it the connection races every response against `clock.sleep(until:)` in a child task,
    /// which costs a task, a system timer and several thread hops per request. A timer firing after the link went
    /// down does nothing, so the transport need not cancel it.
    func schedule(at deadline: RigInstant, _ action: @escaping @Sendable () -> Void) -> Bool
}

extension LinkControl {
    public func schedule(at deadline: RigInstant, _ action: @escaping @Sendable () -> Void) -> Bool { false }
}
