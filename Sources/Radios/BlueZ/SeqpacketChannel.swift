import Dispatch
import Glibc
import Synchronization

/// One non-blocking packet socket (the mgmt control socket, an L2CAP ATT socket) and the POSIX thread that
/// waits on it: optionally for a connect(2) in progress to end, then for packets, each delivered whole and in
/// order. ``close()`` wakes the thread through a socket pair and waits for it; the thread closes the descriptor.
///
/// Sends never block: ``send(_:)`` throws EAGAIN when the socket buffer is full and the caller decides how to
/// wait (on its own clock).
final class SeqpacketChannel: Sendable {
    /// How the connect phase ended.
    enum Connected: Sendable, Equatable {
        case connected
        case failed(Errno)
        /// ``close()`` came first (the caller's timeout or cancellation).
        case cancelled
    }

    let name: String
    let descriptor: Int32
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let closeDescriptor: @Sendable (Int32) -> Void
    private let state = Mutex(State())
    private let finished = DispatchSemaphore(value: 0)

    private struct State {
        var started = false
        var closing = false
        var done = false
        var reader: pthread_t?
    }

    /// Takes ownership of `descriptor`; closes it when the wake-up pair cannot be made.
    init(descriptor: Int32, name: String, close: @escaping @Sendable (Int32) -> Void) throws(Errno) {
        var pair: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, SocketType.stream | SocketType.closeOnExec, 0, &pair) == 0 else {
            let error = Errno.current
            close(descriptor)
            throw error
        }
        self.descriptor = descriptor
        self.name = name
        closeDescriptor = close
        wakeRead = pair[0]
        wakeWrite = pair[1]
    }

    deinit {
        if state.withLock({ !$0.started }) { closeAll() }
    }

    /// Starts the thread. With `pendingError` set, it first waits for the socket to become writable (a connect in
    /// progress ending) and reports through `connected`; without, the socket is taken as connected. Then each
    /// packet goes to `receive`, and `ended` is called once, last: nil after ``close()``, else the errno of the
    /// failed read (or nil for the end of the stream, with `closedByPeer` true).
    func start(
        pendingError: (@Sendable (Int32) -> Errno?)? = nil,
        connected: @escaping @Sendable (Connected) -> Void = { _ in },
        receive: @escaping @Sendable ([UInt8]) -> Void,
        ended: @escaping @Sendable (_ error: Errno?, _ closedByPeer: Bool) -> Void
    ) {
        state.withLock { $0.started = true }
        let failure = ReaderThread.spawn { [self] in
            state.withLock { $0.reader = pthread_self() }
            if let pendingError {
                let outcome = waitConnected(pendingError)
                connected(outcome)
                guard outcome == .connected else { return finish { ended(nil, false) } }
            }
            let (error, byPeer) = readUntilDone(receive)
            finish { ended(error, byPeer) }
        }
        if let failure {
            connected(.failed(failure))
            finish { ended(failure, false) }
        }
    }

    /// Sends one packet whole: throws EAGAIN when the socket cannot take it now, and any other errno.
    func send(_ bytes: [UInt8]) throws(Errno) {
        while true {
            let count = bytes.withUnsafeBytes { raw in
                Glibc.send(descriptor, raw.baseAddress, raw.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
            }
            if count == bytes.count { return }
            if count >= 0 { throw Errno(EMSGSIZE) }
            let error = Errno.current
            if error.code == EINTR { continue }
            throw error
        }
    }

    /// Wakes the thread and waits until it has closed the descriptor and reported `ended` (at once when it never
    /// started, or when called from the thread itself). Idempotent.
    func close() {
        let (wait, closeNow) = state.withLock { state -> (Bool, Bool) in
            if !state.started {
                guard !state.done else { return (false, false) }
                state.done = true
                return (false, true)
            }
            // A thread that ended by itself has closed the pair already: its numbers may be another file's now.
            if !state.closing, !state.done {
                state.closing = true
                var byte: UInt8 = 1
                _ = Glibc.write(wakeWrite, &byte, 1)
            }
            let onReader = state.reader.map { pthread_equal($0, pthread_self()) != 0 } ?? false
            return (!onReader, false)
        }
        if closeNow { closeAll() }
        if wait {
            finished.wait()
            finished.signal()
        }
    }

    private func finish(_ report: () -> Void) {
        // Done before the descriptors close, so that close() never writes to a closed (or reused) one.
        state.withLock { $0.done = true }
        closeAll()
        report()
        finished.signal()
    }

    private func closeAll() {
        closeDescriptor(descriptor)
        _ = Glibc.close(wakeRead)
        _ = Glibc.close(wakeWrite)
    }

    private func waitConnected(_ pendingError: (Int32) -> Errno?) -> Connected {
        var fds = [
            pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0),
            pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0),
        ]
        while true {
            fds[0].revents = 0
            fds[1].revents = 0
            if poll(&fds, 2, -1) < 0 {
                let error = Errno.current
                if error.code == EINTR { continue }
                return .failed(error)
            }
            if fds[1].revents != 0 { return .cancelled }
            guard fds[0].revents != 0 else { continue }
            if let error = pendingError(descriptor) { return .failed(error) }
            return .connected
        }
    }

    /// Reads until ``close()`` (nil, false), the end of the stream (nil, true) or a failed read (its errno).
    private func readUntilDone(_ deliver: ([UInt8]) -> Void) -> (Errno?, Bool) {
        var buffer = [UInt8](repeating: 0, count: 65536)
        var fds = [
            pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0),
            pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0),
        ]
        while true {
            fds[0].revents = 0
            fds[1].revents = 0
            if poll(&fds, 2, -1) < 0 {
                let error = Errno.current
                if error.code == EINTR { continue }
                return (error, false)
            }
            if fds[1].revents != 0 { return (nil, false) }
            let events = Int32(fds[0].revents)
            guard events != 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { raw in
                recv(descriptor, raw.baseAddress, raw.count, Int32(MSG_DONTWAIT))
            }
            if count < 0 {
                let error = Errno.current
                if error.code == EINTR { continue }
                if error.code == EAGAIN {
                    if events & Int32(POLLHUP | POLLERR) != 0 { return (nil, true) }
                    continue
                }
                return (error, false)
            }
            if count == 0 { return (nil, true) }
            if state.withLock({ $0.closing }) { return (nil, false) }
            deliver(Array(buffer[..<count]))
        }
    }
}
