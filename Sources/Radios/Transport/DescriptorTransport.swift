import BLECore
import BenchCore
import Dispatch
import Glibc
import Synchronization

/// What the TCP, UART and user-channel transports share: one non-blocking descriptor, a reader thread that polls it
/// together with a wake-up socket, a send lock, and a close that wakes the reader and waits for it to finish.
///
/// The reader thread owns the descriptor's end: it closes the descriptor (under the send lock, so no send writes to
/// a reused number), then calls `closed`, then lets ``close()`` return. The wake-up socket, once written, stays
/// readable, so the reader and a send stalled in poll(2) both see it.
final class DescriptorTransport: Sendable {
    /// How one transport differs from the others.
    struct Behaviour: Sendable {
        enum Framing: Sendable {
            /// A byte stream cut into packets by ``HCI/H4Parser`` (TCP, UART).
            case stream
            /// One whole packet per read and per write (the BlueZ user channel).
            case datagram
        }

        var framing: Framing
        /// recv(2)/send(2) with MSG_DONTWAIT and MSG_NOSIGNAL (sockets), or read(2)/write(2) (a tty opened
        /// O_NONBLOCK).
        var isSocket: Bool
        /// Run after a read that returned bytes, once the packets it completed are delivered, when nothing was
        /// written since the read: the host did not answer it. TCP arms TCP_QUICKACK then, which acknowledges the
        /// read's bytes at once; a controller with Nagle on (rootcanal sends an H4 indicator alone) holds the rest
        /// of its output until they are. An answered read needs nothing: the answer carried the acknowledgement, and
        /// the socket stays in Linux's delayed-ACK mode, so the next read sends no ACK of its own.
        var acknowledgeUnanswered: (@Sendable (Int32) -> Void)?
        /// The reader blocks in recv(2) on the socket itself instead of polling it with the wake-up socket: one
        /// system call per read instead of two. ``DescriptorTransport/close()`` then wakes it with shutdown(2).
        /// Sockets only (a stream socket's shutdown ends a blocked recv; a tty has no such call).
        var blockingReads = false
        /// With ``blockingReads``: sets the descriptor up for a coalescing read that wakes only once this many bytes
        /// are in or a window has passed, while the host allows it
        /// (``DescriptorTransport/coalesceShortPackets(_:atLeast:)``), or back to waking at the first byte (0).
        /// nil: every read wakes at the first byte.
        var coalesce: (@Sendable (Int32, Int) -> Void)?
        /// With ``coalesce``: the fewest bytes a coalescing read waits for, more than a short packet. One that
        /// returns fewer met its window with a short packet in.
        var coalescingLowWater = 1
        /// With ``coalesce``: how long a coalescing read waits for its bytes.
        var coalescingWindow = Duration.zero
        /// With ``coalesce``: the data segments the descriptor has received so far (TCP_INFO). Reads coalesce only
        /// once the controller is seen to send each packet whole, in one segment (see ``PeerSending``).
        var segmentsReceived: (@Sendable (Int32) -> UInt32?)?
        /// The error for a read that failed with an errno, or that met the end of the stream (nil).
        var readFailed: @Sendable (Errno?) -> HCITransportError
        /// The error for a write that failed with an errno.
        var writeFailed: @Sendable (Errno) -> HCITransportError
        /// The error for bytes that are not H4.
        var framingLost: @Sendable (DecodingError) -> HCITransportError
        /// The error for a controller that took no bytes for ``DescriptorTransport/writeTimeout``.
        var writeStalled: HCITransportError
        /// Closes the descriptor (the user channel closes through its injected system calls).
        var closeDescriptor: @Sendable (Int32) -> Void = { _ = Glibc.close($0) }
    }

    /// How long a send waits for a controller that takes no bytes (a full socket, a UART whose CTS stays low).
    static let writeTimeout: Duration = .seconds(2)

    let description: String
    /// The transport's descriptor, for tests that check its options; closed once ``close()`` returned.
    let descriptor: Int32
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let behaviour: Behaviour
    private let state = Mutex(State())
    /// Held for each whole send, and by the reader thread while it closes the descriptors.
    private let writer = Mutex(true)
    /// Signalled once the reader thread is done (or there never was one); every waiter signals it again.
    private let finished = DispatchSemaphore(value: 0)
    /// A write went out since the last read returned: the host answered it (``Behaviour/acknowledgeUnanswered``).
    private let wrote = Atomic(false)
    /// Reads that returned bytes, so far (a benchmark's wake-ups).
    let reads = Atomic(0)
    /// The bytes a read may wait for, as the host allows (``coalesceShortPackets(_:atLeast:)``); 0: none.
    private let coalescingAllowed = Atomic(0)
    /// What the reader has learnt of the controller's sending (a ``PeerSending``), for tests.
    private let peerSending = Atomic(PeerSending.unknown.rawValue)

    private struct State {
        enum Phase { case idle, running, closing, finished }
        var phase = Phase.idle
        var reader: pthread_t?
        var failure: HCITransportError?

        var onReader: Bool { reader.map { pthread_equal($0, pthread_self()) != 0 } ?? false }
    }

    /// Takes ownership of `descriptor`, which must be non-blocking (or a socket, read with MSG_DONTWAIT); closes
    /// it when the wake-up socket cannot be made.
    init(descriptor: Int32, description: String, behaviour: Behaviour) throws(HCITransportError) {
        var pair: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, SocketType.stream | SocketType.closeOnExec, 0, &pair) == 0 else {
            let error = Errno.current
            behaviour.closeDescriptor(descriptor)
            throw HCITransportError(.io, "\(description): cannot create the reader's wake-up socket: \(error)")
        }
        self.descriptor = descriptor
        self.description = description
        self.behaviour = behaviour
        wakeRead = pair[0]
        wakeWrite = pair[1]
    }

    deinit {
        // Never started: nobody else will close them. A started transport is kept alive by its reader thread.
        if state.withLock({ $0.phase == .idle }) { closeDescriptors() }
    }

    func start(
        packet: @escaping @Sendable (HCI.H4Packet) -> Void,
        closed: @escaping @Sendable (HCITransportError?) -> Void
    ) {
        let begin = state.withLock { state in
            switch state.phase {
            case .idle:
                state.phase = .running
                return true
            case .finished where state.reader == nil:
                return false
            default:
                preconditionFailure("\(description): start(packet:closed:) called twice")
            }
        }
        guard begin else {
            closed(nil)
            return
        }
        if let error = ReaderThread.spawn({ self.run(packet: packet, closed: closed) }) {
            finish(HCITransportError(.io, "\(description): cannot start the reader thread: \(error)"), closed: closed)
        }
    }

    func send(_ packet: HCI.H4Packet) throws(HCITransportError) {
        let bytes = packet.encoded
        try writer.withLock { (open: inout Bool) throws(HCITransportError) in
            let failure = state.withLock { $0.phase == .running || $0.phase == .idle ? nil : $0.failure ?? closedError }
            if let failure { throw failure }
            guard open else { throw closedError }
            try write(bytes)
        }
    }

    func close() {
        let (wait, closeNow) = state.withLock { state in
            switch state.phase {
            case .idle:
                state.phase = .finished
                return (false, true)
            case .running:
                state.phase = .closing
                var byte: UInt8 = 1
                _ = Glibc.write(wakeWrite, &byte, 1)
                // The reader owns the descriptor until it finishes, which it cannot before this lock is released.
                if behaviour.blockingReads { _ = Glibc.shutdown(descriptor, Int32(SHUT_RDWR)) }
                return (!state.onReader, false)
            case .closing, .finished:
                return (!state.onReader, false)
            }
        }
        if closeNow {
            writer.withLock { open in
                if open { closeDescriptors() }
                open = false
            }
            finished.signal()
        }
        if wait {
            finished.wait()
            finished.signal()
        }
    }

    /// See ``HCITransport/coalesceShortPackets(_:atLeast:)``; has effect only with ``Behaviour/coalesce``.
    func coalesceShortPackets(_ on: Bool, atLeast bytes: Int) {
        guard behaviour.coalesce != nil else { return }
        coalescingAllowed.store(on ? max(behaviour.coalescingLowWater, bytes) : 0, ordering: .relaxed)
    }

    private var closedError: HCITransportError { HCITransportError(.disconnected, "\(description) is closed") }

    private func run(
        packet: @escaping @Sendable (HCI.H4Packet) -> Void,
        closed: @escaping @Sendable (HCITransportError?) -> Void
    ) {
        state.withLock { $0.reader = pthread_self() }
        finish(readUntilDone(packet), closed: closed)
    }

    /// Records how the transport ended, closes the descriptors, reports, and releases ``close()``.
    private func finish(_ error: HCITransportError?, closed: @Sendable (HCITransportError?) -> Void) {
        let report = state.withLock { state in
            let report = state.phase == .closing ? nil : error
            state.phase = .finished
            state.failure = report
            return report
        }
        writer.withLock { open in
            if open { closeDescriptors() }
            open = false
        }
        closed(report)
        finished.signal()
    }

    private func closeDescriptors() {
        behaviour.closeDescriptor(descriptor)
        _ = Glibc.close(wakeRead)
        _ = Glibc.close(wakeWrite)
    }

    /// Reads until the wake-up socket fires (nil) or the descriptor fails (its error).
    private func readUntilDone(_ deliver: @Sendable (HCI.H4Packet) -> Void) -> HCITransportError? {
        if behaviour.blockingReads { return readBlocking(deliver) }
        var parser = HCI.H4Parser()
        // The largest H4 packet: an indicator, a 4-byte ACL header and 65535 bytes of data.
        var buffer = [UInt8](repeating: 0, count: 1 + 4 + 65535)
        var fds = [
            pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0),
            pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0),
        ]
        while true {
            fds[0].revents = 0
            fds[1].revents = 0
            guard poll(&fds, 2, -1) >= 0 else {
                let error = Errno.current
                if error.code == EINTR { continue }
                return HCITransportError(.io, "\(description): poll failed: \(error)")
            }
            if fds[1].revents != 0 { return nil }
            let events = Int32(fds[0].revents)
            guard events != 0 else { continue }
            if events & Int32(POLLNVAL) != 0 {
                return HCITransportError(.io, "\(description): the descriptor was closed under the reader")
            }
            let count = buffer.withUnsafeMutableBytes { raw in
                behaviour.isSocket
                    ? recv(descriptor, raw.baseAddress, raw.count, Int32(MSG_DONTWAIT))
                    : read(descriptor, raw.baseAddress, raw.count)
            }
            if count < 0 {
                let error = Errno.current
                if error.code == EINTR { continue }
                if error.code == EAGAIN {
                    // Readable by poll yet nothing to read: a hang-up with no error behind it ends the stream.
                    if events & Int32(POLLHUP | POLLERR) != 0 { return behaviour.readFailed(nil) }
                    continue
                }
                return behaviour.readFailed(error)
            }
            if count == 0 { return behaviour.readFailed(nil) }
            readReturned()
            defer { afterRead() }
            var packets: [HCI.H4Packet] = []
            var lost: DecodingError?
            do throws(DecodingError) {
                switch behaviour.framing {
                case .stream: try parser.feed(buffer[..<count], into: &packets)
                case .datagram: packets = [try HCI.H4Packet(decoding: buffer[..<count])]
                }
            } catch {
                lost = error
            }
            // The packets completed before framing was lost are delivered first.
            for packet in packets {
                if state.withLock({ $0.phase != .running }) { return nil }
                deliver(packet)
            }
            if let lost { return behaviour.framingLost(lost) }
        }
    }

    /// Reads with recv(2) blocking on the socket until ``close()`` shuts it down (nil) or it fails (its error).
    private func readBlocking(_ deliver: @Sendable (HCI.H4Packet) -> Void) -> HCITransportError? {
        // Blocking for reads; every send passes MSG_DONTWAIT, so writes still never block.
        let flags = fcntl(descriptor, F_GETFL)
        if flags >= 0 { _ = fcntl(descriptor, F_SETFL, flags & ~O_NONBLOCK) }
        var parser = HCI.H4Parser()
        var buffer = [UInt8](repeating: 0, count: 1 + 4 + 65535)
        // Reused for every read: its storage is allocated once.
        var packets: [HCI.H4Packet] = []
        // The bytes the current read waits for; 0: the first.
        var coalescing = 0
        // A coalescing read that met its window with nothing in ends coalescing until the next packet is delivered:
        // a peer slow to answer then costs one more wake-up, not one per window.
        var windowPassed = false
        var peer = PeerSending.unknown
        var packetsIn = 0
        var stalls = HeldWindows()
        while true {
            if state.withLock({ $0.phase != .running }) { return nil }
            let wanted = peer == .wholePackets && !windowPassed ? coalescingAllowed.load(ordering: .relaxed) : 0
            if wanted != coalescing {
                behaviour.coalesce?(descriptor, wanted)
                coalescing = wanted
            }
            // Waiting for more than a short packet (the rest of a fragmented response), poll(2) comes first: it counts
            // every byte in the socket against the low-water mark. A blocking recv(2) that finds some already in copies
            // them, then waits for the mark's worth of new ones, which may never come, and sits out the window.
            var flags: Int32 = 0
            if coalescing > behaviour.coalescingLowWater {
                var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                let window = (behaviour.coalescingWindow / .milliseconds(1)).rounded(.up)
                let polled = poll(&ready, 1, Int32(clamping: Int(window)))
                if polled < 0, Errno.current.code == EINTR { continue }
                if polled == 0 {
                    windowPassed = true
                    continue
                }
                flags = Int32(MSG_DONTWAIT)
            }
            let count = buffer.withUnsafeMutableBytes { raw in recv(descriptor, raw.baseAddress, raw.count, flags) }
            if count < 0 {
                let error = Errno.current
                if error.code == EAGAIN, coalescing > 0 { windowPassed = true }
                if error.code == EINTR || error.code == EAGAIN { continue }
                return behaviour.readFailed(error)
            }
            windowPassed = false
            // The end of the stream, or close() shut the socket down (then finish reports no error).
            if count == 0 { return behaviour.readFailed(nil) }
            // A short packet that waited out the whole window: nothing came after it in time, or the controller holds
            // what does until the packet is acknowledged.
            if coalescing > 0, stalls.count(held: count < behaviour.coalescingLowWater) {
                learn(.waitsForACKs, into: &peer)
            }
            readReturned()
            defer { afterRead() }
            packets.removeAll(keepingCapacity: true)
            do throws(DecodingError) {
                try parser.feed(buffer[..<count], into: &packets)
            } catch {
                for packet in packets { deliver(packet) }
                return behaviour.framingLost(error)
            }
            // Before the packets are delivered, so that no answer to them has been asked for yet.
            packetsIn += packets.count
            learn(classified(peer, packetsIn: packetsIn, midPacket: parser.bufferedCount > 0), into: &peer)
            for packet in packets {
                if state.withLock({ $0.phase != .running }) { return nil }
                deliver(packet)
            }
        }
    }

    /// Counts a read that returned bytes; writes from here on answer it.
    private func readReturned() {
        reads.add(1, ordering: .relaxed)
        wrote.store(false, ordering: .relaxed)
    }

    private func afterRead() {
        guard let acknowledge = behaviour.acknowledgeUnanswered, !wrote.load(ordering: .acquiring) else { return }
        acknowledge(descriptor)
    }

    /// How the controller sends, from what came in so far: `packetsIn` packets, the last read ending inside one
    /// (`midPacket`) or not. Decided once; what coalescing then costs is ``HeldWindows``' to judge.
    private func classified(_ peer: PeerSending, packetsIn: Int, midPacket: Bool) -> PeerSending {
        guard peer == .unknown else { return peer }
        if midPacket { return .waitsForACKs }
        guard packetsIn >= 4, let segments = behaviour.segmentsReceived?(descriptor) else { return peer }
        // One segment a packet, or two; half as many again allows a segment that came in since the read.
        return UInt64(segments) * 2 <= UInt64(packetsIn) * 3 ? .wholePackets : .waitsForACKs
    }

    private func learn(_ sending: PeerSending, into peer: inout PeerSending) {
        guard sending != peer else { return }
        peer = sending
        peerSending.store(sending.rawValue, ordering: .relaxed)
    }

    /// What the reader has learnt of how the controller sends.
    var sending: PeerSending { PeerSending(rawValue: peerSending.load(ordering: .relaxed)) ?? .unknown }

    /// Writes all of `bytes`, waiting in poll(2) while the descriptor would block; one datagram is all or nothing.
    private func write(_ bytes: [UInt8]) throws(HCITransportError) {
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeBytes { raw in
                let start = raw.baseAddress! + offset
                return behaviour.isSocket
                    ? Glibc.send(descriptor, start, raw.count - offset, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
                    : Glibc.write(descriptor, start, raw.count - offset)
            }
            if count >= 0 {
                if behaviour.framing == .datagram && count != bytes.count {
                    throw HCITransportError(
                        .io, "\(description): the kernel took \(count) of the packet's \(bytes.count) bytes")
                }
                offset += count
                wrote.store(true, ordering: .releasing)
                continue
            }
            let error = Errno.current
            switch error.code {
            case EINTR: continue
            case EAGAIN: try waitWritable()
            default: throw behaviour.writeFailed(error)
            }
        }
    }

    private func waitWritable() throws(HCITransportError) {
        var fds = [
            pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0),
            pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0),
        ]
        let milliseconds = Int32(Self.writeTimeout.components.seconds * 1000)
        while true {
            let ready = poll(&fds, 2, milliseconds)
            if ready < 0 && errno == EINTR { continue }
            if ready < 0 { throw HCITransportError(.io, "\(description): poll failed: \(Errno.current)") }
            if ready == 0 { throw behaviour.writeStalled }
            if fds[1].revents != 0 { throw closedError }
            return
        }
    }
}

/// Whether coalescing reads still pay, from the ones that returned bytes: a read that met its bytes saved a wake-up;
/// one that returned a short packet after the whole window (held) saved none and delayed the packet. A controller
/// that holds what follows a short packet until it is acknowledged (one that sends whole packets with Nagle on)
/// holds every such read, one in two of the coalescing reads; a controller slow for a moment (a loaded machine, a
/// rootcanal that missed its tick) holds one now and then, and coalescing goes on. Each held read adds
/// ``heldCost``, each read that met its bytes takes one off, and a total of ``limit`` ends coalescing: a stalling
/// controller's third held read (the answer it held comes in between), two held reads in a row, or held reads more
/// than a third of the coalescing ones for a while.
struct HeldWindows {
    static let heldCost = 2
    static let limit = 4
    private(set) var debt = 0

    /// Counts one coalescing read that returned bytes; true once coalescing no longer pays.
    mutating func count(held: Bool) -> Bool {
        debt = held ? debt + Self.heldCost : max(0, debt - 1)
        return debt >= Self.limit
    }
}

/// What a controller's way of sending over TCP lets a coalescing read do. Such a read leaves the bytes in
/// unacknowledged until more are in: free with a controller that sends each packet whole with Nagle off (the
/// rootcanal blerig starts), a stall with one that waits for the ACK before it sends more (a rootcanal started without
/// blerig's library sends each H4 indicator alone, then holds the packet behind it until the indicator is
/// acknowledged). See docs/radios.md, "Waking once per answer".
public enum PeerSending: UInt8, Sendable {
    /// Fewer than four packets in: reads wake at the first byte.
    case unknown
    /// At most one data segment a packet (the count is taken after four packets, allowing half as many again for
    /// one that came in since): reads may coalesce.
    case wholePackets
    /// More segments than that, or a read that ended inside a packet, before the count; or, once reads coalesce,
    /// short packets that wait out whole windows too often for coalescing to pay (a controller that sends whole
    /// packets with Nagle on, see ``HeldWindows``): reads never coalesce again.
    case waitsForACKs
}

/// A transport that is a ``DescriptorTransport`` with its own way of opening: the HCI calls go to the core.
protocol DescriptorBackedTransport: HCITransport {
    var core: DescriptorTransport { get }
}

extension DescriptorBackedTransport {
    public var description: String { core.description }

    public func start(
        packet: @escaping @Sendable (HCI.H4Packet) -> Void,
        closed: @escaping @Sendable (HCITransportError?) -> Void
    ) { core.start(packet: packet, closed: closed) }

    public func send(_ packet: HCI.H4Packet) throws(HCITransportError) { try core.send(packet) }

    public func close() { core.close() }

    public func coalesceShortPackets(_ on: Bool, atLeast bytes: Int) { core.coalesceShortPackets(on, atLeast: bytes) }
}
