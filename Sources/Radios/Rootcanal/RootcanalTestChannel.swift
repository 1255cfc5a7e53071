import Dispatch
import Foundation
import Synchronization

/// A client of rootcanal's test channel (see ``RootcanalTestChannelCodec`` for the bytes): one TCP connection,
/// one command at a time, each answered by one reply.
///
/// The socket is blocking with a timeout on every read and write; commands run one after another on a serial
/// queue of the client's own, so callers never block a task. rootcanal answers within a millisecond.
public final class RootcanalTestChannel: Sendable {
    public let host: String
    public let port: UInt16
    /// How long a connect, a write or a reply may take before the command fails.
    public let timeout: Duration

    private let fd: Int32
    private let closed = Atomic<Bool>(false)
    private let replies = Mutex(Replies())
    private let queue: DispatchQueue

    private struct Replies {
        var decoder = RootcanalTestChannelCodec.ReplyDecoder()
        var waiting: [String] = []
    }

    private init(fd: Int32, host: String, port: UInt16, timeout: Duration) {
        self.fd = fd
        self.host = host
        self.port = port
        self.timeout = timeout
        self.queue = DispatchQueue(label: "blerig.rootcanal.test-channel.\(port)")
    }

    deinit { Glibc.close(fd) }

    /// Connects to the test channel at `host` (an IPv4 address, or `localhost`) and `port`, and reads the
    /// greeting rootcanal sends to every new client.
    ///
    /// rootcanal serves one test channel client at a time: a second one is greeted "The connection is
    /// broken" and dropped. That is retried until `timeout` (the other client may be closing), then thrown.
    public static func connect(
        host: String = "127.0.0.1", port: UInt16, timeout: Duration = .seconds(5),
        clock: some Clock<Duration> = ContinuousClock()
    ) async throws(RootcanalError) -> RootcanalTestChannel {
        let deadline = clock.now.advanced(by: timeout)
        while true {
            let result: Result<RootcanalTestChannel?, RootcanalError> = await withCheckedContinuation { continuation in
                DispatchQueue.global().async {
                    continuation.resume(
                        returning: Result { () throws(RootcanalError) in try greeted(host, port, timeout) })
                }
            }
            if let channel = try result.get() { return channel }
            guard clock.now < deadline else {
                throw RootcanalError(
                    .testChannel, "rootcanal's test channel at \(host):\(port) already has a client",
                    fix: "rootcanal serves one test channel client at a time: close the other one first")
            }
            try? await clock.sleep(for: .milliseconds(20))
        }
    }

    /// Opens a connection and reads the greeting: the channel, or nil when rootcanal has a client already.
    private static func greeted(
        _ host: String, _ port: UInt16, _ timeout: Duration
    ) throws(RootcanalError)
        -> RootcanalTestChannel?
    {
        let fd = try openSocket(host: host, port: port, timeout: timeout)
        let channel = RootcanalTestChannel(fd: fd, host: host, port: port, timeout: timeout)
        let greeting = try channel.readReply(after: "connecting")
        if greeting == RootcanalTestChannelCodec.busy { return nil }
        guard greeting == RootcanalTestChannelCodec.greeting else {
            throw channel.error(
                .unexpectedReply,
                "greeted the client with '\(greeting)' instead of '\(RootcanalTestChannelCodec.greeting)'")
        }
        return channel
    }

    /// Sends one command and returns rootcanal's reply, whatever it says.
    public func send(_ command: RootcanalTestChannelCodec.Command) async throws(RootcanalError) -> String {
        try await perform { () throws(RootcanalError) in try self.exchange(command) }
    }

    /// `list`: the devices and phys.
    public func list() async throws(RootcanalError) -> RootcanalTopology {
        try RootcanalTopology(listReply: try await send(.init("list")))
    }

    /// `set_timer_period`: rootcanal's tick, the quantum of all its timing (5 ms unless set). Only whole
    /// milliseconds can be set. Throws unless rootcanal confirms the new period.
    public func setTimerPeriod(_ period: Duration) async throws(RootcanalError) {
        let milliseconds = Int(period / .milliseconds(1))
        guard milliseconds >= 1, period == .milliseconds(milliseconds) else {
            throw RootcanalError(
                .invalidCommand, "the timer period must be a whole number of milliseconds ≥ 1, not \(period)")
        }
        let reply = try await send(.init("set_timer_period", ["\(milliseconds)"]))
        guard reply == "set timer period to \(milliseconds)" else {
            throw error(
                .unexpectedReply, "answered '\(reply)' to set_timer_period \(milliseconds): the tick is unchanged")
        }
    }

    /// `add_device_to_phy`: puts a device on a phy (0 BR/EDR, 1 LE). rootcanal answers the same whether or
    /// not the device exists, so the topology is checked before and after.
    public func addDeviceToPhy(device: Int, phy: Int) async throws(RootcanalError) {
        try await changePhy("add_device_to_phy", device: device, phy: phy, member: true)
    }

    /// `del_device_from_phy`: takes a device off a phy. In rootcanal 1.10 its packets on that phy are then
    /// dropped silently; its connections are not ended.
    public func deleteDeviceFromPhy(device: Int, phy: Int) async throws(RootcanalError) {
        try await changePhy("del_device_from_phy", device: device, phy: phy, member: false)
    }

    /// Closes the connection; a command in flight fails. Idempotent.
    public func close() {
        if !closed.exchange(true, ordering: .acquiringAndReleasing) { shutdown(fd, Int32(SHUT_RDWR)) }
    }

    private func changePhy(_ name: String, device: Int, phy: Int, member: Bool) async throws(RootcanalError) {
        let before = try await list()
        guard before.devices.contains(where: { $0.index == device }) else {
            throw error(
                .invalidCommand, "has no device \(device) for \(name) (devices: \(before.devices.map(\.index)))")
        }
        guard before.phys.contains(where: { $0.index == phy }) else {
            throw error(.invalidCommand, "has no phy \(phy) for \(name) (phys: \(before.phys.map(\.index)))")
        }
        let reply = try await send(.init(name, ["\(device)", "\(phy)"]))
        let after = try await list()
        guard after.phys.first(where: { $0.index == phy })?.devices.contains(device) == member else {
            throw error(.unexpectedReply, "answered '\(reply)' to \(name) \(device) \(phy), but the phy did not change")
        }
    }

    private func perform<T: Sendable>(
        _ work: @escaping @Sendable () throws(RootcanalError) -> T
    ) async throws(RootcanalError) -> T {
        let result: Result<T, RootcanalError> = await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: Result { () throws(RootcanalError) in try work() }) }
        }
        return try result.get()
    }

    private func exchange(_ command: RootcanalTestChannelCodec.Command) throws(RootcanalError) -> String {
        guard !closed.load(ordering: .acquiring) else { throw error(.testChannel, "is closed") }
        let bytes = try command.encoded()
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if sent < 0, errno == EINTR { continue }
            guard sent > 0 else { throw error(.testChannel, "could not take '\(command)': \(SpawnError.errno())") }
            offset += sent
        }
        return try readReply(after: "'\(command)'")
    }

    private func readReply(after what: String) throws(RootcanalError) -> String {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let next = replies.withLock { $0.waiting.isEmpty ? nil : $0.waiting.removeFirst() }
            if let next { return next }
            // rootcanal writes a reply's length and text separately without TCP_NODELAY: acknowledge at once.
            var one: Int32 = 1
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_QUICKACK, &one, socklen_t(MemoryLayout<Int32>.size))
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0, errno == EINTR { continue }
            if count < 0, errno == EAGAIN || errno == EWOULDBLOCK {
                throw error(.testChannel, "did not answer \(what) within \(timeout)")
            }
            guard count > 0 else {
                throw error(
                    .testChannel,
                    "closed the connection before answering \(what)" + (count < 0 ? ": \(SpawnError.errno())" : ""))
            }
            try replies.withLock { (state: inout Replies) throws(RootcanalError) in
                state.waiting += try state.decoder.feed(buffer[..<count])
            }
        }
    }

    private func error(_ code: RootcanalError.Code, _ message: String) -> RootcanalError {
        RootcanalError(code, "rootcanal's test channel at \(host):\(port) \(message)")
    }

    private static func openSocket(host: String, port: UInt16, timeout: Duration) throws(RootcanalError) -> Int32 {
        func failure(_ what: String) -> RootcanalError {
            RootcanalError(.testChannel, "cannot connect to rootcanal's test channel at \(host):\(port): \(what)")
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        guard inet_pton(AF_INET, host == "localhost" ? "127.0.0.1" : host, &address.sin_addr) == 1 else {
            throw failure("'\(host)' is not an IPv4 address")
        }
        let fd = socket(AF_INET, SocketType.stream | SocketType.closeOnExec, 0)
        guard fd >= 0 else { throw failure(SpawnError.errno()) }
        var ok = false
        defer { if !ok { Glibc.close(fd) } }
        let flags = fcntl(fd, F_GETFL)
        _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        if connected != 0 {
            guard errno == EINPROGRESS else { throw failure(SpawnError.errno()) }
            var poller = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            let ready = poll(&poller, 1, Int32(timeout / .milliseconds(1)))
            guard ready > 0 else { throw failure(ready == 0 ? "no answer within \(timeout)" : SpawnError.errno()) }
            var problem: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &problem, &length)
            guard problem == 0 else { throw failure(SpawnError.errno(problem)) }
        }
        _ = fcntl(fd, F_SETFL, flags)
        let seconds = timeout.components.seconds
        var limit = timeval(tv_sec: Int(seconds), tv_usec: Int((timeout - .seconds(seconds)) / .microseconds(1)))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        ok = true
        return fd
    }
}
