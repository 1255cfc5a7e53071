import BLECore

/// One connection attempt of a ``ConnectionShell`` as its shell saw it: when the connect was requested, whether and
/// when the link came up, the handshake's timeline when the session got ready, and why it failed otherwise. The
/// shell reports it (``ConnectionShell/Report/attempt(_:at:)``) once the attempt is settled: when the session is
/// ready and handed to the machine as connected, or when the attempt ends without one. (A link the machine closed
/// as it came up, before the handshake began, is no attempt of anyone's: it is not reported.)
///
/// The machine sees only the events (`connected`, `failedToConnect`), as an app sees Core Bluetooth's callbacks;
/// this record is for whoever measures the connections the app makes (`handshake.connect_ms` and `ready_ms` are
/// the timeline's `connect` and `total`, and an attempt with a ``failure`` is a connection that did not reach
/// ready), without opening connections of its own.
public struct LinkAttempt: Sendable, Hashable, CustomStringConvertible {
    public var peripheral: DeviceAddress
    /// The connect request (the instant the shell asked its central to connect).
    public var requested: RigInstant
    /// When the link came up; nil when it did not.
    public var linkUp: RigInstant?
    /// The handshake's steps, when the session got ready: `requested` → link up → MTU → discovery → ready.
    public var timeline: HandshakeTimeline?
    /// The ATT_MTU the handshake agreed, when the session got ready.
    public var mtu: UInt16?
    /// Why the attempt gave no usable session (connecting, the handshake or authentication failed); nil when the
    /// session got ready and was handed to the machine.
    public var failure: String?
    /// The HCI reason the machine was told with a failure.
    public var reason: HCIErrorCode?

    public init(
        peripheral: DeviceAddress, requested: RigInstant, linkUp: RigInstant? = nil, timeline: HandshakeTimeline? = nil,
        mtu: UInt16? = nil, failure: String? = nil, reason: HCIErrorCode? = nil
    ) {
        self.peripheral = peripheral
        self.requested = requested
        self.linkUp = linkUp
        self.timeline = timeline
        self.mtu = mtu
        self.failure = failure
        self.reason = reason
    }

    /// True when the session got ready.
    public var succeeded: Bool { failure == nil }

    public var description: String {
        if let failure {
            let up = linkUp.map { " (link up after \(requested.duration(to: $0).milliseconds.rounded()) ms)" } ?? ""
            return "connecting to \(peripheral) failed\(up): \(failure)"
        }
        guard let timeline else { return "connected to \(peripheral)" }
        let ms = { (d: Duration) in (d.milliseconds * 1000).rounded() / 1000 }
        return "session with \(peripheral) ready in \(ms(timeline.total)) ms (link up in \(ms(timeline.connect)) ms, "
            + "MTU \(mtu.map(String.init) ?? "?"), table \(timeline.discovery == .cached ? "cached" : "discovered"))"
    }
}
