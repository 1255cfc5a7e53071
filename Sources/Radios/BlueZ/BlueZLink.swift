import BLECore
import Glibc
import Synchronization

/// One LE link of the kernel's stack as blerig holds it: an L2CAP socket on the ATT fixed channel, the thread
/// that reads it, and the ``GATTClientConnection`` its PDUs go to. It is the connection's ``ATTBearer`` and
/// ``LinkControl``.
final class BlueZLink: ATTBearer, LinkControl, Sendable {
    let peer: DeviceAddress
    let channel: SeqpacketChannel
    private weak let central: BlueZCentral?
    private let clock: any RigClock
    private let state = Mutex(State())

    private struct State {
        var connection: GATTClientConnection?
        var attempt: CheckedContinuation<Outcome, Never>?
        var resolved = false
        var down = false
        var closedByUs = false
    }

    /// How the connect phase ended.
    enum Outcome: Sendable {
        case connected(GATTClientConnection, mtus: (send: UInt16, receive: UInt16))
        case failed(Errno)
        case timedOut
        case cancelled
    }

    init(peer: DeviceAddress, channel: SeqpacketChannel, central: BlueZCentral) {
        self.peer = peer
        self.channel = channel
        self.central = central
        clock = central.clock
    }

    /// Starts the socket's thread on a connect in progress (or done, `immediately`) and waits at most `timeout`
    /// for it. The connection is made on the thread, before the first PDU is read, so none is lost.
    func connect(immediately: Bool, timeout: Duration, sockets: any BlueZSockets) async -> Outcome {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Outcome, Never>) in
                state.withLock { $0.attempt = continuation }
                let timer = Task { [weak self, clock] in
                    try? await clock.sleep(for: timeout)
                    if !Task.isCancelled { self?.resolve(.timedOut) }
                }
                channel.start(
                    pendingError: { immediately ? nil : sockets.pendingError($0) },
                    connected: { [weak self] connected in
                        timer.cancel()
                        guard let self else { return }
                        switch connected {
                        case .connected: resolve(makeConnection(sockets))
                        case let .failed(error): resolve(.failed(error))
                        case .cancelled: resolve(.cancelled)
                        }
                    },
                    receive: { [weak self] pdu in self?.receive(pdu) },
                    ended: { [weak self] error, _ in self?.ended(error) })
            }
        } onCancel: {
            resolve(.cancelled)
        }
    }

    /// Reads the socket's MTUs and makes the GATT connection: this side offers what the socket takes, at most
    /// ATT's 517.
    private func makeConnection(_ sockets: any BlueZSockets) -> Outcome {
        let mtus: (send: UInt16, receive: UInt16)
        do { mtus = try sockets.mtus(channel.descriptor) } catch { return .failed(error) }
        let local = min(ATT.maximumMTU, mtus.receive, mtus.send)
        let connection = GATTClientConnection(
            peer: peer, bearer: self, link: self, clock: clock, localMTU: max(local, ATT.defaultMTU))
        state.withLock { $0.connection = connection }
        return .connected(connection, mtus: mtus)
    }

    /// The first outcome wins; a later one is dropped. An outcome other than `.connected` closes the socket.
    private func resolve(_ outcome: Outcome) {
        let continuation = state.withLock { state -> CheckedContinuation<Outcome, Never>? in
            guard !state.resolved else { return nil }
            state.resolved = true
            defer { state.attempt = nil }
            return state.attempt
        }
        guard let continuation else { return }
        if case .connected = outcome {} else {
            state.withLock { $0.closedByUs = true }
            // From the socket's own thread, close() does not wait for itself.
            channel.close()
        }
        continuation.resume(returning: outcome)
    }

    private func receive(_ pdu: [UInt8]) {
        central?.count(in: pdu.count)
        state.withLock { $0.connection }?.receive(pdu)
    }

    /// The socket ended: the link is down. The reason comes from mgmt when it can.
    private func ended(_ error: Errno?) {
        let (connection, closedByUs) = state.withLock { state -> (GATTClientConnection?, Bool) in
            state.down = true
            return (state.connection, state.closedByUs)
        }
        // A failed or abandoned attempt: the connect call reports it.
        guard let connection else { return }
        Task { [weak self, peer, central] in
            let reason =
                await central?.disconnectReason(for: peer, error: error, closedByUs: closedByUs)
                ?? .localHostTerminated
            connection.linkDown(reason)
            if let self { central?.remove(self) }
        }
    }

    // MARK: - ATTBearer, LinkControl

    /// Sends one PDU; while the socket's buffer is full it waits on the clock, a millisecond at a time.
    func send(_ pdu: [UInt8]) async throws(GATTError) {
        while true {
            if state.withLock({ $0.down }) { throw .disconnected(.unknownConnectionIdentifier) }
            do {
                try channel.send(pdu)
                central?.count(out: pdu.count)
                return
            } catch where error.code == EAGAIN || error.code == ENOBUFS {
                try? await clock.sleep(for: .milliseconds(1))
            } catch {
                throw .disconnected(Self.reason(of: error))
            }
        }
    }

    /// Answers to the peer (confirmations): sent at once, or by a task when the buffer is full.
    func sendImmediately(_ pdu: [UInt8]) {
        do {
            try channel.send(pdu)
            central?.count(out: pdu.count)
        } catch where error.code == EAGAIN || error.code == ENOBUFS {
            Task { try? await self.send(pdu) }
        } catch {}
    }

    /// Ends the link: closes the socket while the link is still up, asks mgmt to Disconnect (the kernel sends HCI
    /// Disconnect at once, where a closed socket alone would leave the link up for two more seconds), and waits
    /// until the kernel no longer has the link, at most ``downWait``.
    ///
    /// The socket goes first because of a kernel bug: on Linux 6.1.192 (Debian 12's 6.1.0-56), an ATT socket
    /// closed after its link went down frees the link's HCI channel a second time ("kernel BUG at
    /// lib/list_debug.c:56" in hci_chan_del, from l2cap_sock_release), which kills the closing thread and can hang
    /// the machine. Closed while the link is up, the channel goes with the link. See docs/radios.md.
    ///
    /// The wait is for the next connect: Linux answers mgmt Disconnect before it even sends HCI Disconnect (the
    /// kernel tier's btmon capture), and a connect to the same board in between joins the dying link (the kernel
    /// reuses a board's connection) and fails with it: there, with two boards, 1 handshake in 19 failed with 0x3E.
    func disconnect() async {
        guard let central, closeWhileUp() else { return }
        _ = try? await central.mgmt.send(Mgmt.Disconnect(Mgmt.Address(peer)), index: central.adapter)
        await central.waitUntilLinkGone(peer, within: Self.downWait)
    }

    /// Closes the socket while the link is still up: the first step of ``disconnect()``, and what blerig does before
    /// it switches the adapter off (which ends every link); once the link is down, the close would trip the kernel
    /// bug ``disconnect()`` describes. False when the link was down already.
    @discardableResult
    func closeWhileUp() -> Bool {
        let up = state.withLock { state -> Bool in
            guard !state.down else { return false }
            state.closedByUs = true
            return true
        }
        if up { channel.close() }
        return up
    }

    /// How long ``disconnect()`` waits for the link to go after mgmt accepted the Disconnect: the controller
    /// answers HCI Disconnect within a connection event or two.
    static let downWait: Duration = .seconds(2)

    /// mgmt said the link is down (Device Disconnected) and the socket has not ended by itself: end it, so that the
    /// connection goes down with mgmt's reason rather than waiting on a socket the kernel left open.
    func forceDown() {
        guard !state.withLock({ $0.down }) else { return }
        channel.close()
    }

    /// The reason a failed send stands for.
    static func reason(of error: Errno) -> HCIErrorCode {
        switch error.code {
        case ETIMEDOUT: .connectionTimeout
        case ECONNRESET: .remoteUserTerminated
        default: .unknownConnectionIdentifier
        }
    }
}
