import BLECore
import Glibc

extension BlueZCentral {
    /// Connects through an L2CAP socket on the ATT fixed channel, as BlueZ's btgatt-client does: bind to the
    /// adapter with `l2_cid = 4`, set the security level and the receive MTU, connect without blocking to the
    /// board's address and type, and wait at most `timeout`. The kernel scans for the board itself, connects when
    /// it hears it, and hands the socket the link's ATT channel. Several links may be up, and several attempts in
    /// progress, at once.
    public func connect(to address: DeviceAddress, timeout: Duration) async throws(CentralError) -> any GATTConnection {
        let (powered, closed, adapterFailure) = state.withLock { state in
            state.disconnectReasons[address] = nil
            state.connectFailures[address] = nil
            return (state.powered, state.closed, state.failure)
        }
        guard !closed else { throw .radioUnavailable("the BlueZ radio hci\(adapter) is closed") }
        if let adapterFailure { throw .radioUnavailable(adapterFailure) }
        guard powered else { throw .radioUnavailable("hci\(adapter) is powered off") }
        if Task.isCancelled { throw .cancelled }
        try await loadParameters(for: address)
        let socket = try openSocket(to: address)
        let immediately: Bool
        do { immediately = try sockets.connectATT(socket, to: address) } catch {
            sockets.close(socket)
            throw .radioUnavailable(BlueZFailure.call(.connect, error, adapter: adapter, peer: address).description)
        }
        let channel: SeqpacketChannel
        do { channel = try SeqpacketChannel(descriptor: socket, name: "ATT \(address)", close: sockets.close) } catch {
            throw .radioUnavailable("hci\(adapter): the socket's wake-up pair could not be made: \(error)")
        }
        let link = BlueZLink(peer: address, channel: channel, central: self)
        switch await link.connect(immediately: immediately, timeout: timeout, sockets: sockets) {
        case let .connected(connection, _):
            state.withLock { $0.links[address] = link }
            return connection
        case .timedOut:
            throw .notFound(address, waited: timeout)
        case .cancelled:
            throw .cancelled
        case let .failed(error):
            throw failure(error, connecting: address, waited: timeout)
        }
    }

    /// Opens and prepares the ATT socket: bound to this adapter on channel 4, security level, receive MTU.
    private func openSocket(to peer: DeviceAddress) throws(CentralError) -> Int32 {
        let socket: Int32
        do { socket = try sockets.openL2CAPSocket() } catch {
            throw .radioUnavailable(BlueZFailure.call(.l2capSocket, error, adapter: adapter, peer: peer).description)
        }
        var call = BlueZFailure.Call.bindATT
        do {
            try sockets.bindATT(socket, adapter: adapterAddress)
            call = .security
            try sockets.setSecurity(socket, level: security)
            call = .receiveMTU
            try sockets.setReceiveMTU(socket, ATT.maximumMTU)
        } catch {
            sockets.close(socket)
            throw .radioUnavailable(BlueZFailure.call(call, error, adapter: adapter, peer: peer).description)
        }
        return socket
    }

    /// Loads blerig's connection parameters for `peer` (and the boards before it: the kernel forgets the others'
    /// on each load). A refusal for lack of permission stops the attempt; any other leaves the kernel's defaults.
    private func loadParameters(for peer: DeviceAddress) async throws(CentralError) {
        guard let connectionParameters else { return }
        let entries = state.withLock { state in
            state.loadedParameters[peer] = Mgmt.LoadConnectionParameters.Entry(peer, connectionParameters)
            return state.loadedParameters.keys.sorted().compactMap { state.loadedParameters[$0] }
        }
        do {
            _ = try await mgmt.send(Mgmt.LoadConnectionParameters(entries), index: adapter)
        } catch where error.status == .permissionDenied {
            throw .radioUnavailable(BlueZFailure.command(error, adapter: adapter).description)
        } catch {}
    }

    /// A connect that ended with `error`: the kernel's Connect Failed status when mgmt sent one, else the errno.
    private func failure(_ error: Errno, connecting peer: DeviceAddress, waited: Duration) -> CentralError {
        if let status = state.withLock({ $0.connectFailures.removeValue(forKey: peer) }) {
            return .connectionFailed(peer, reason: status.hciReason)
        }
        switch error.code {
        case ETIMEDOUT, EHOSTDOWN:
            // The kernel's own limit (20 s of scanning for the board) came before the caller's.
            return .notFound(peer, waited: waited)
        case ECONNREFUSED, ECONNRESET, ECONNABORTED:
            return .connectionFailed(peer, reason: .connectionFailedToBeEstablished)
        case EACCES, EKEYREJECTED:
            return .connectionFailed(peer, reason: .authenticationFailure)
        default:
            return .radioUnavailable(BlueZFailure.call(.connect, error, adapter: adapter, peer: peer).description)
        }
    }
}
