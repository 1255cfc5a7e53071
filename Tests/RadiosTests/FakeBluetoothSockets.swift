import BLECore
import Glibc
import Synchronization
import Testing

@testable import Radios

/// BlueZ without a kernel: each call is logged and may fail with a chosen errno. A socket is one end of a
/// SOCK_SEQPACKET pair, which keeps packet boundaries as the user channel does; the test plays the controller on
/// the other end. A call on a socket the fake did not open, or already closed, is recorded as an issue.
final class FakeBluetoothSockets: BluetoothSockets {
    enum Call: Hashable, Sendable { case socket, bringDown, bind, list, info }

    private let failures: [Call: Errno]
    private let adapters: [HCIDeviceInfo]
    /// HCIGETCONNLIST's answer: whether adapter N has an LE link to a peer.
    private let links: @Sendable (UInt16, DeviceAddress) throws(Errno) -> Bool
    private let state = Mutex(State())

    private struct State {
        var log: [String] = []
        /// Open sockets and the controller end of each.
        var peers: [Int32: Int32] = [:]
        var claimed: Set<Int32> = []
    }

    init(
        failing failures: [Call: Errno] = [:], adapters: [HCIDeviceInfo] = [],
        links: @escaping @Sendable (UInt16, DeviceAddress) throws(Errno) -> Bool = { _, _ in false }
    ) {
        self.failures = failures
        self.adapters = adapters
        self.links = links
    }

    /// Every call, in order: `socket`, `HCIDEVDOWN hci0`, `bind hci0`, `HCIGETDEVLIST`, `HCIGETDEVINFO hci0`, `close`.
    var log: [String] { state.withLock { $0.log } }
    /// Sockets opened and not closed.
    var openSockets: Int { state.withLock { $0.peers.count } }

    /// The controller's end of the socket the transport bound; the test closes it.
    func controller() -> Int32? {
        state.withLock { state in
            guard let peer = state.peers.values.first(where: { !state.claimed.contains($0) }) else { return nil }
            state.claimed.insert(peer)
            return peer
        }
    }

    func openHCISocket() throws(Errno) -> Int32 {
        try record("socket", .socket)
        var pair: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, SocketType.seqpacket | SocketType.closeOnExec, 0, &pair) == 0 else {
            Issue.record("socketpair failed: \(Errno.current)")
            throw Errno.current
        }
        state.withLock { $0.peers[pair[0]] = pair[1] }
        return pair[0]
    }

    func bringDown(_ socket: Int32, adapter: UInt16) throws(Errno) {
        try record("HCIDEVDOWN hci\(adapter)", .bringDown, on: socket)
        guard adapters.contains(where: { $0.index == adapter }) else { throw Errno(ENODEV) }
    }

    func bindUserChannel(_ socket: Int32, adapter: UInt16) throws(Errno) {
        try record("bind hci\(adapter)", .bind, on: socket)
        guard adapters.contains(where: { $0.index == adapter }) else { throw Errno(ENODEV) }
    }

    func adapterIndexes(_ socket: Int32) throws(Errno) -> [UInt16] {
        try record("HCIGETDEVLIST", .list, on: socket)
        return adapters.map(\.index).reversed()
    }

    func adapterInfo(_ socket: Int32, adapter: UInt16) throws(Errno) -> HCIDeviceInfo {
        try record("HCIGETDEVINFO hci\(adapter)", .info, on: socket)
        guard let info = adapters.first(where: { $0.index == adapter }) else { throw Errno(ENODEV) }
        return info
    }

    /// Not logged: the kernel path asks every 2 ms while a link goes.
    func linkExists(_ socket: Int32, adapter: UInt16, peer: DeviceAddress) throws(Errno) -> Bool {
        if !state.withLock({ $0.peers[socket] != nil }) {
            Issue.record("HCIGETCONNLIST on socket \(socket), which is not open")
        }
        return try links(adapter, peer)
    }

    func close(_ socket: Int32) {
        let peer = state.withLock { state in
            state.log.append("close")
            return state.peers.removeValue(forKey: socket).map { (peer: $0, claimed: state.claimed.contains($0)) }
        }
        guard let peer else {
            Issue.record("close of socket \(socket), which the fake did not open or already closed")
            return
        }
        Glibc.close(socket)
        if !peer.claimed { Glibc.close(peer.peer) }
    }

    private func record(_ entry: String, _ call: Call, on socket: Int32? = nil) throws(Errno) {
        let known = state.withLock { state in
            state.log.append(entry)
            return socket.map { state.peers[$0] != nil } ?? true
        }
        if !known { Issue.record("\(entry) on socket \(socket!), which is not open") }
        if let failure = failures[call] { throw failure }
    }
}

extension HCIDeviceInfo {
    /// A USB LE controller, up and running, as hciconfig would show hci0.
    static func usb(_ index: UInt16, address: UInt64 = 0x00_1A7D_DA71_13) -> Self {
        HCIDeviceInfo(
            index: index, name: "hci\(index)", address: DeviceAddress(address), flags: 0b101, type: 1,
            features: [0xFF, 0xFE, 0x8F, 0xFE, 0xD8, 0x3F, 0x5B, 0x87])
    }
}
