import BenchCore
import BLECore
import Glibc

/// H4 over a TCP connection, as rootcanal serves each virtual controller (`tcp:127.0.0.1:6402`).
///
/// TCP_NODELAY is on. A read the host does not answer with a write is acknowledged at once (TCP_QUICKACK): a
/// rootcanal started without blerig's library sends the H4 indicator in a send(2) of its own with Nagle on, so
/// against a host that delays its ACKs every HCI packet would stall ~40 ms. An answered read is acknowledged by the
/// answer, with no ACK of its own.
/// The reader blocks in recv(2) (``DescriptorTransport/Behaviour/blockingReads``): one system call per read. While
/// the host awaits an ATT response and nothing else (``HCIHost/completionsCanWait``), and the controller sends each
/// packet whole (``PeerSending``), a read wakes only once a packet longer than a Number of Completed Packets event is
/// in, or ``coalescingWindow`` after it began: the event and the response behind it cost one wake-up, not two
/// (docs/radios.md, "Waking once per answer").
public final class TCPTransport: DescriptorBackedTransport {
    public let host: String
    public let port: UInt16
    let core: DescriptorTransport

    /// Connects, giving up after `connectTimeout` per resolved address.
    public convenience init(host: String, port: UInt16, connectTimeout: Duration = .seconds(5))
        throws(HCITransportError)
    {
        try self.init(host: host, port: port, connectTimeout: connectTimeout, coalescingWindow: Self.coalescingWindow)
    }

    /// As the public initialiser, with another window for coalesced reads (tests lengthen it to tell a read held
    /// for the next packet from a slow machine).
    init(host: String, port: UInt16, connectTimeout: Duration, coalescingWindow: Duration) throws(HCITransportError) {
        self.host = host
        self.port = port
        let spec = HCITransportSpec.tcp(host: host, port: port)
        let descriptor = try Self.connectedSocket(host: host, port: port, timeout: connectTimeout)
        let controller = "controller at \(spec)"
        core = try DescriptorTransport(
            descriptor: descriptor, description: spec.description,
            behaviour: .init(
                framing: .stream, isSocket: true, acknowledgeUnanswered: Self.armQuickAck, blockingReads: true,
                coalesce: { descriptor, bytes in
                    Self.setReadWait(
                        descriptor, lowWater: bytes > 0 ? Int32(clamping: bytes) : 1,
                        timeout: bytes > 0 ? coalescingWindow : nil)
                },
                coalescingLowWater: Int(Self.coalescingThreshold), coalescingWindow: coalescingWindow,
                segmentsReceived: Self.dataSegmentsIn,
                readFailed: { error in
                    switch error?.code {
                    case nil: HCITransportError(.disconnected, "\(controller) closed the connection")
                    case ECONNRESET: HCITransportError(.disconnected, "\(controller) reset the connection")
                    case let .some(code): HCITransportError(.io, "reading from \(controller) failed: \(Errno(code))")
                    }
                },
                writeFailed: { error in
                    error.code == EPIPE || error.code == ECONNRESET
                        ? HCITransportError(.disconnected, "\(controller) closed the connection")
                        : HCITransportError(.io, "writing to \(controller) failed: \(error)")
                },
                framingLost: { error in
                    HCITransportError(
                        .framing, "\(controller) sent bytes that are not H4: \(error)",
                        fix: "check that \(spec) is an HCI port (rootcanal's is 6402), not its test channel")
                },
                writeStalled: HCITransportError(
                    .io, "\(controller) took no bytes for \(DescriptorTransport.writeTimeout)")))
    }

    /// Reads from the socket that returned bytes, so far: how often the reader woke for the controller.
    public var reads: Int { core.reads.load(ordering: .relaxed) }

    /// What the reader has learnt of how the controller sends: whether reads may coalesce.
    public var peerSending: PeerSending { core.sending }

    /// The connected socket, for tests of its options.
    var descriptor: Int32 { core.descriptor }


    /// A socket connected to `host`:`port` with the options this transport reads and writes with: TCP_NODELAY on
    /// and TCP_QUICKACK armed (arm it again with ``armQuickAck(_:)`` after a read nothing answered), left
    /// non-blocking as the timed connect made it. The caller owns it. `bench hci` replays packets on one to measure
    /// what the socket alone costs.
    public static func connectedSocket(
        host: String, port: UInt16, timeout: Duration = .seconds(5)
    ) throws(HCITransportError) -> Int32 {
        let descriptor = try connect(spec: .tcp(host: host, port: port), host: host, port: port, timeout: timeout)
        var on: Int32 = 1
        _ = setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
        armQuickAck(descriptor)
        return descriptor
    }

    /// While the host awaits an ATT response, a read wakes once more than a Number of Completed Packets event for
    /// one link is in (8 bytes with its H4 indicator): the event and the response after it in one wake-up.
    public static let coalescingThreshold: Int32 = 9
    /// How long such a read waits with fewer bytes before it returns what it has: two of rootcanal's default 1 ms
    /// ticks, the answer coming a tick after the event. Linux rounds a socket timeout up to its scheduler tick, so
    /// the wait is longer where HZ is low (6–8 ms measured with HZ=250).
    public static let coalescingWindow: Duration = .milliseconds(2)

    /// Sets how a read of `descriptor` waits: until `lowWater` bytes are in (SO_RCVLOWAT), for at most `timeout`
    /// with fewer (SO_RCVTIMEO; nil: no limit). The transport's coalescing reads and the socket floor's use it.
    public static func setReadWait(_ descriptor: Int32, lowWater: Int32, timeout: Duration?) {
        var lowWater = lowWater
        _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVLOWAT, &lowWater, socklen_t(MemoryLayout<Int32>.size))
        // A zero timeval is no limit; the sub-microsecond part is dropped.
        var limit = timeval()
        if let parts = timeout?.components {
            limit = timeval(tv_sec: Int(parts.seconds), tv_usec: Int(parts.attoseconds / 1_000_000_000_000))
        }
        _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Leaves Linux's delayed-ACK mode, sending the ACK of bytes read so far if one is due.
    public static func armQuickAck(_ descriptor: Int32) {
        var on: Int32 = 1
        _ = setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_QUICKACK, &on, socklen_t(MemoryLayout<Int32>.size))
    }

    /// The data segments `descriptor` has received (TCP_INFO's tcpi_data_segs_in, Linux 4.6 and later), or nil
    /// where the kernel does not say.
    public static func dataSegmentsIn(_ descriptor: Int32) -> UInt32? {
        // struct tcp_info as <linux/tcp.h> lays it out; glibc's copy stops before this field.
        let offset = 152
        var info = [UInt8](repeating: 0, count: 256)
        var length = socklen_t(info.count)
        let status = info.withUnsafeMutableBytes { raw in
            getsockopt(descriptor, Int32(IPPROTO_TCP), Int32(TCP_INFO), raw.baseAddress, &length)
        }
        guard status == 0, Int(length) >= offset + 4 else { return nil }
        return info.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: UInt32.self) }
    }

    /// What a failed connect(2) means, and what to check.
    static func connectFailed(_ error: Errno, spec: HCITransportSpec) -> HCITransportError {
        switch error.code {
        case ECONNREFUSED:
            HCITransportError(
                .unavailable, "nothing listens at \(spec): \(error)",
                fix: "is rootcanal running on that port? `python -m rootcanal` serves HCI on 6402")
        case ETIMEDOUT:
            HCITransportError(
                .unavailable, "no answer from \(spec): \(error)",
                fix: "check the host and port; a firewall may be dropping the connection")
        case ENETUNREACH, EHOSTUNREACH, ENETDOWN:
            HCITransportError(.unavailable, "cannot reach \(spec): \(error)", fix: "check the host name or address")
        default:
            HCITransportError(.io, "connecting to \(spec) failed: \(error)")
        }
    }

    /// Resolves `host` and connects to the first address that answers, each within `timeout`.
    private static func connect(
        spec: HCITransportSpec, host: String, port: UInt16, timeout: Duration
    ) throws(HCITransportError) -> Int32 {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = SocketType.stream
        hints.ai_protocol = Int32(IPPROTO_TCP)
        var list: UnsafeMutablePointer<addrinfo>?
        let resolved = getaddrinfo(host, String(port), &hints, &list)
        guard resolved == 0 else {
            let reason = String(cString: gai_strerror(resolved))
            throw HCITransportError(
                .unavailable, "cannot resolve '\(host)' for \(spec): \(reason)", fix: "check the host name")
        }
        defer { freeaddrinfo(list) }
        var lastError = HCITransportError(.unavailable, "'\(host)' resolves to no address for \(spec)")
        var next = list
        while let address = next?.pointee {
            next = address.ai_next
            let descriptor = socket(
                address.ai_family,
                SocketType.stream | SocketType.closeOnExec | SocketType.nonBlocking,
                address.ai_protocol)
            guard descriptor >= 0 else {
                lastError = HCITransportError(.io, "cannot create a socket for \(spec): \(Errno.current)")
                continue
            }
            if let error = waitConnected(descriptor, address, spec: spec, timeout: timeout) {
                _ = Glibc.close(descriptor)
                lastError = error
                continue
            }
            return descriptor
        }
        throw lastError
    }

    private static func waitConnected(
        _ descriptor: Int32, _ address: addrinfo, spec: HCITransportSpec, timeout: Duration
    ) -> HCITransportError? {
        if Glibc.connect(descriptor, address.ai_addr, address.ai_addrlen) == 0 { return nil }
        guard errno == EINPROGRESS || errno == EINTR else { return connectFailed(.current, spec: spec) }
        let deadline = ContinuousClock.now + timeout
        var fds = [pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)]
        while true {
            let left = ContinuousClock.now.duration(to: deadline)
            let milliseconds = max(
                0, Int32(left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000))
            let ready = poll(&fds, 1, milliseconds)
            if ready < 0 && errno == EINTR { continue }
            if ready < 0 { return HCITransportError(.io, "waiting to connect to \(spec) failed: \(Errno.current)") }
            if ready == 0 {
                return HCITransportError(
                    .unavailable, "no answer from \(spec) within \(timeout)",
                    fix: "check the host and port; a firewall may be dropping the connection")
            }
            var code: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            _ = getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &code, &length)
            return code == 0 ? nil : connectFailed(Errno(code), spec: spec)
        }
    }
}
