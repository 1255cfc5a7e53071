import BLECore
import BenchCore
import Foundation
import Glibc
import Radios

/// What the socket alone costs: blerig's recorded handshake (``HandshakeScript``) replayed against the same
/// rootcanal and peripheral, on a socket set up and read as blerig's TCP transport does (TCP_NODELAY, a blocking
/// recv(2) per read, TCP_QUICKACK armed after a read nothing answered), with no host behind it: each packet
/// goes when the answer the central waited for is in, and nothing else is done. Its CPU time per handshake is
/// what the kernel charges any host that talks to rootcanal this way, so neither central can get below it.
struct SocketFloor {
    let host: String
    let port: UInt16
    let script: HandshakeScript
    let handshakes: Int
    /// How long a read may wait for the controller before the replay gives up.
    var patience: Duration = .seconds(10)

    /// Replays the handshakes on a thread of its own and returns the CPU time that thread used over them.
    func run() async throws -> SocketFloorMeasurement {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                continuation.resume(with: Result { () throws(BenchmarkError) in try replay() })
            }
            thread.name = "blerig-socket-floor"
            thread.start()
        }
    }

    private func replay() throws(BenchmarkError) -> SocketFloorMeasurement {
        let descriptor: Int32
        do {
            descriptor = try TCPTransport.connectedSocket(host: host, port: port)
        } catch {
            throw BenchmarkError("the socket floor could not connect to rootcanal at \(host):\(port): \(error)")
        }
        defer { close(descriptor) }
        // Blocking reads, as blerig's transport reads rootcanal.
        let flags = fcntl(descriptor, F_GETFL)
        if flags >= 0 { _ = fcntl(descriptor, F_SETFL, flags & ~O_NONBLOCK) }
        var socket = ReplaySocket(descriptor: descriptor, host: host, port: port, patience: patience)
        socket.setCoalescing(0)

        // The controller set up as blerig's host sets it up, as far as a connection needs.
        let setup: [HCI.Command] = [
            .reset, .setEventMask(HCIHost.eventMask), .leSetEventMask(HCIHost.leEventMask),
        ]
        var initialisation = HandshakeReplay(
            HandshakeScript(
                steps: setup.map { .init(packet: $0.h4.encoded, awaits: .commandDone(opcode: $0.opcode.rawValue)) }))
        try socket.run(&initialisation)

        var replay = HandshakeReplay(script)
        let cpuBefore = Self.threadCPU()
        let wallBefore = ContinuousClock.now
        for _ in 0..<handshakes { try socket.run(&replay) }
        let cpu = Self.threadCPU() - cpuBefore
        return SocketFloorMeasurement(
            handshakes: handshakes, cpuS: cpu.seconds, loopS: (ContinuousClock.now - wallBefore).seconds,
            readsPerHandshake: Double(socket.reads) / Double(max(1, handshakes)))
    }

    /// This thread's CPU time (CLOCK_THREAD_CPUTIME_ID).
    private static func threadCPU() -> Duration {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return .seconds(Int64(time.tv_sec)) + .nanoseconds(Int64(time.tv_nsec))
    }
}

/// The replay's socket: sends a step's packet, reads into one buffer and cuts H4 packets out of it in place.
private struct ReplaySocket {
    let descriptor: Int32
    let host: String
    let port: UInt16
    let patience: Duration
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    var held = 0
    /// Nothing was sent since the last read: it is acknowledged before the next one, as blerig's transport does.
    var unanswered = false
    var reads = 0
    /// The bytes a read waits for, as blerig's transport waits while its host allows it; 0: the first.
    var coalescing: Int32 = 0
    var windowPassed = false

    /// The socket's low-water mark and timeout for a coalescing read, as blerig's transport sets them; otherwise the
    /// first byte and the replay's patience.
    mutating func setCoalescing(_ lowWater: Int32) {
        TCPTransport.setReadWait(
            descriptor, lowWater: max(1, lowWater), timeout: lowWater > 0 ? TCPTransport.coalescingWindow : patience)
        coalescing = lowWater
    }

    /// One pass through `replay`: its first packet, then each next one as its answer comes, until it is done.
    mutating func run(_ replay: inout HandshakeReplay) throws(BenchmarkError) {
        try send(replay.packets[replay.step])
        while true {
            let progress = try next(&replay)
            if progress == .done { return }
            if progress == .send { try send(replay.packets[replay.step]) }
        }
    }

    private mutating func send(_ packet: [UInt8]) throws(BenchmarkError) {
        let sent = packet.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard sent == packet.count else {
            throw BenchmarkError("the socket floor's write to rootcanal at \(host):\(port) failed: \(Errno.current)")
        }
        unanswered = false
    }

    /// Hands the replay the next whole packet held, reading when none is; what the replay answered.
    private mutating func next(_ replay: inout HandshakeReplay) throws(BenchmarkError) -> HandshakeReplay.Progress {
        while true {
            if let length = try wholePacket() {
                let answer = buffer.withUnsafeBytes { raw in
                    Result { () throws(BenchmarkError) in
                        try replay.received(UnsafeRawBufferPointer(rebasing: raw[..<length]))
                    }
                }
                let progress = try answer.get()
                buffer.withUnsafeMutableBytes { raw in
                    raw.baseAddress!.copyMemory(from: raw.baseAddress! + length, byteCount: held - length)
                }
                held -= length
                if progress != .waiting { return progress }
                continue
            }
            guard held < buffer.count else {
                throw BenchmarkError("rootcanal at \(host):\(port) sent a packet longer than \(buffer.count) bytes")
            }
            if unanswered {
                TCPTransport.armQuickAck(descriptor)
                unanswered = false
            }
            let wanted = windowPassed ? 0 : replay.bytesToWaitFor
            if wanted != coalescing { setCoalescing(wanted) }
            let count = buffer.withUnsafeMutableBytes { raw in
                recv(descriptor, raw.baseAddress! + held, raw.count - held, 0)
            }
            guard count > 0 else {
                if count < 0, Errno.current.code == EINTR { continue }
                if count < 0, Errno.current.code == EAGAIN, coalescing > 0 {
                    windowPassed = true
                    continue
                }
                throw BenchmarkError(
                    count == 0
                        ? "rootcanal at \(host):\(port) closed the socket floor's connection"
                        : "the socket floor's read from rootcanal at \(host):\(port) failed at step "
                            + "\(replay.step + 1): \(Errno.current)")
            }
            reads += 1
            held += count
            windowPassed = false
            unanswered = true
        }
    }

    /// The length of the whole H4 packet at the front of the buffer, or nil while it is not all in.
    private func wholePacket() throws(BenchmarkError) -> Int? {
        let framed = buffer.withUnsafeBufferPointer { bytes in
            Result { () throws(DecodingError) in
                try HCI.H4Parser.packetLength(UnsafeBufferPointer(rebasing: bytes[..<held]), at: 0)
            }
        }
        do {
            return try framed.get()
        } catch {
            throw BenchmarkError("rootcanal at \(host):\(port) sent the socket floor bytes that are not H4: \(error)")
        }
    }
}

/// What the socket floor measured.
public struct SocketFloorMeasurement: Sendable, Hashable, Codable {
    public var handshakes: Int
    /// CPU time of the replaying thread over the handshakes, in seconds.
    public var cpuS: Double
    /// Wall time of the handshakes, in seconds.
    public var loopS: Double
    /// recv(2) calls per handshake.
    public var readsPerHandshake: Double

    public init(handshakes: Int, cpuS: Double, loopS: Double, readsPerHandshake: Double) {
        self.handshakes = handshakes
        self.cpuS = cpuS
        self.loopS = loopS
        self.readsPerHandshake = readsPerHandshake
    }

    /// CPU milliseconds per handshake.
    public var cpuMsPerHandshake: Double { handshakes == 0 ? 0 : cpuS * 1000 / Double(handshakes) }
}
