import BLECore
import Foundation
import Glibc
import Synchronization
import Testing

@testable import Radios

/// The kernel's Bluetooth path without a kernel: the system calls of ``BlueZSockets`` are logged and may fail with
/// any errno, and the descriptors are SOCK_SEQPACKET socket pairs whose other ends this fake plays. On the control
/// socket it answers mgmt commands as the kernel does for one adapter (hci0 unless told); on each ATT socket a
/// board's GATT server may answer. A command it does not expect, or a call on a socket it did not open, is
/// recorded as an issue.
final class FakeBlueZKernel: BlueZSockets {
    enum Call: Hashable, Sendable {
        case controlSocket, bindControl, l2capSocket, bindATT, security, receiveMTU, connect, mtus
    }

    /// How connect(2) on an ATT socket goes.
    enum Connect: Sendable {
        /// EINPROGRESS, then writable with SO_ERROR 0.
        case connects
        /// EINPROGRESS, then SO_ERROR is this errno.
        case fails(Errno)
        /// EINPROGRESS and never writable: the board is not there.
        case hangs
    }

    struct Adapter: Sendable {
        var index: UInt16 = 0
        var address: UInt64 = 0x00_1A_7D_DA_71_13
        var supported: Mgmt.Settings = [.powered, .connectable, .le, .bredr]
        var powered = true
    }

    struct ATTSocket: Sendable {
        var descriptor: Int32
        var board: Int32
        var boundTo: UInt64?
        var security: BlueZSecurity?
        var receiveMTU: UInt16?
        var peer: DeviceAddress?
    }

    private struct State {
        var log: [String] = []
        var commands: [String] = []
        var control: (mine: Int32, theirs: Int32)?
        var att: [ATTSocket] = []
        var open: Set<Int32> = []
        var adapter: Adapter
        var discovering = false
        /// Board ends a serving thread owns (it closes them), and board ends already closed.
        var served: Set<Int32> = []
        var closedBoards: Set<Int32> = []
        /// The peers the kernel has an LE link to (HCIGETCONNLIST): from a connect that succeeded until the link
        /// goes down (Disconnect, ``dropLink(_:reason:)``, power off).
        var links: Set<DeviceAddress> = []
        /// When a link answered before it went down (``linkDownAfterReply``) went down.
        var linkDownAt: [DeviceAddress: ContinuousClock.Instant] = [:]
        /// Whether each peer's ATT socket was closed while the kernel still had its link: on Linux 6.1.192 a socket
        /// closed after its link went down frees the link's HCI channel twice (kernel BUG in hci_chan_del).
        var closedWhileLinkUp: [DeviceAddress: Bool] = [:]
    }

    private let failures: [Call: Errno]
    private let connect: @Sendable (DeviceAddress) -> Connect
    /// Statuses to answer commands with instead of success.
    private let refuse: [UInt16: Mgmt.Status]
    private let otherIndexes: [UInt16]
    /// How long after answering Disconnect the link goes down (its socket ends), as Linux 6.1.192 answers before
    /// the controller has; nil: at once, before the answer.
    private let linkDownAfterReply: Duration?
    private let state: Mutex<State>

    init(
        adapter: Adapter = Adapter(), otherIndexes: [UInt16] = [], failing failures: [Call: Errno] = [:],
        refusing refuse: [Mgmt.Opcode: Mgmt.Status] = [:], linkDownAfterReply: Duration? = nil,
        connect: @escaping @Sendable (DeviceAddress) -> Connect = { _ in .connects }
    ) {
        self.failures = failures
        self.linkDownAfterReply = linkDownAfterReply
        self.connect = connect
        self.otherIndexes = otherIndexes
        self.refuse = Dictionary(uniqueKeysWithValues: refuse.map { ($0.key.rawValue, $0.value) })
        state = Mutex(State(adapter: adapter))
    }

    /// Every system call, in order: `socket(control)`, `bind(control)`, `socket(l2cap)`, `bind(att 00:1A:…)`,
    /// `security 2`, `rcvmtu 517`, `connect E4:…/random`, `SO_ERROR`, `mtus`, `close`.
    var log: [String] { state.withLock { $0.log } }
    /// The mgmt commands the kernel received: `Set Powered (0x0005) hci0 [01]`.
    var commands: [String] { state.withLock { $0.commands } }
    var attSockets: [ATTSocket] { state.withLock { $0.att } }
    /// When the link to `peer` went down after its Disconnect was answered (``linkDownAfterReply``).
    func linkDownAt(_ peer: DeviceAddress) -> ContinuousClock.Instant? { state.withLock { $0.linkDownAt[peer] } }
    /// Whether `peer`'s ATT socket was closed while its link was up; nil while it is open.
    func closedWhileLinkUp(_ peer: DeviceAddress) -> Bool? { state.withLock { $0.closedWhileLinkUp[peer] } }
    var openDescriptors: Int { state.withLock { $0.open.count } }
    var isPowered: Bool { state.withLock { $0.adapter.powered } }

    // MARK: - The kernel's side

    /// Sends an event on the control socket, as the kernel does to every mgmt socket.
    func emit(_ event: Mgmt.Event, index: UInt16? = nil) {
        let (theirs, adapter) = state.withLock { ($0.control?.theirs, $0.adapter.index) }
        guard let theirs else {
            Issue.record("an event with no mgmt socket open")
            return
        }
        write(event.packet(index: index ?? adapter).encoded, to: theirs)
    }

    /// The kernel ends the mgmt socket (as it would on a failure): blerig's end reads end-of-file.
    func endControl() {
        guard let theirs = state.withLock({ $0.control?.theirs }) else {
            Issue.record("no mgmt socket open")
            return
        }
        shutdown(theirs, Int32(SHUT_RDWR))
    }

    /// The board's end of the ATT socket connected to `peer`.
    func board(_ peer: DeviceAddress) -> Int32? {
        state.withLock { $0.att.last { $0.peer == peer }?.board }
    }

    /// The link to `peer` goes down as the kernel reports it: Device Disconnected (when `reason` is given), then the
    /// socket ends with `errno`.
    func dropLink(_ peer: DeviceAddress, reason: Mgmt.DeviceDisconnected.Reason?) {
        if let reason { emit(.deviceDisconnected(.init(address: Mgmt.Address(peer), reason: reason))) }
        takeDown(peer)
    }

    /// The link to `peer` is gone: HCIGETCONNLIST no longer lists it, and its socket ends if it is still open.
    private func takeDown(_ peer: DeviceAddress) {
        state.withLock { state in
            state.links.remove(peer)
            state.linkDownAt[peer] = ContinuousClock.now
            // Under the lock, so that closeBoard cannot close (and the number be reused) in between.
            if let board = state.att.last(where: { $0.peer == peer })?.board, !state.closedBoards.contains(board) {
                shutdown(board, Int32(SHUT_RDWR))
            }
        }
    }

    /// Serves `peer`'s end with a GATT server on its own thread until the socket ends.
    func serve(_ peer: DeviceAddress, _ server: GATTServer) {
        guard let board = board(peer) else {
            Issue.record("no ATT socket to \(peer)")
            return
        }
        let box = Mutex(server)
        state.withLock { _ = $0.served.insert(board) }
        Thread.detachNewThread { [self] in
            var buffer = [UInt8](repeating: 0, count: 1024)
            while true {
                let count = recv(board, &buffer, buffer.count, 0)
                guard count > 0 else { return closeBoard(board) }
                let actions = box.withLock { $0.receive(Array(buffer[..<count]), from: 1) }
                for case let .send(pdu, _) in actions { _ = send(board, pdu, pdu.count, Int32(MSG_NOSIGNAL)) }
            }
        }
    }

    /// Closes a board's end once, whoever gets there first.
    private func closeBoard(_ board: Int32) {
        if state.withLock({ $0.closedBoards.insert(board).inserted }) { _ = Glibc.close(board) }
    }

    private func write(_ bytes: [UInt8], to descriptor: Int32) {
        let count = send(descriptor, bytes, bytes.count, Int32(MSG_NOSIGNAL))
        guard count != bytes.count else { return }
        let error = Errno(errno)
        // blerig closed its end (the test is over, or the channel under test was closed): a kernel drops events
        // for a socket nobody holds, and so does the fake; recorded from this thread, the issue would belong to
        // no test and fail whichever run it landed in.
        if count < 0, error.code == EPIPE || error.code == ECONNRESET { return }
        Issue.record("the fake kernel could not write: \(error)")
    }

    /// Reads commands from the control socket and answers them, until it closes.
    private func runControl(_ theirs: Int32) {
        Thread.detachNewThread { [self] in
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = recv(theirs, &buffer, buffer.count, 0)
                guard count > 0 else { return _ = Glibc.close(theirs) }
                do {
                    let packet = try Mgmt.Packet(decoding: buffer[..<count])
                    for event in answer(packet) { write(event.packet(index: packet.index).encoded, to: theirs) }
                } catch {
                    Issue.record("the fake kernel got a packet that is not mgmt: \(error)")
                }
            }
        }
    }

    /// What the kernel answers to one command.
    private func answer(_ packet: Mgmt.Packet) -> [Mgmt.Event] {
        let opcode = Mgmt.Opcode(rawValue: packet.code)
        let hex = packet.parameters.map { String($0, radix: 16) }.joined(separator: " ")
        let index = packet.index
        let adapter = state.withLock { state -> Adapter in
            state.commands.append("\(opcode) \(index == Mgmt.noIndex ? "-" : "hci\(index)") [\(hex)]")
            return state.adapter
        }
        if let status = refuse[packet.code] { return [.commandStatus(.init(opcode: opcode, status: status))] }
        if opcode != .readIndexList, index != adapter.index {
            return [.commandStatus(.init(opcode: opcode, status: .invalidIndex))]
        }
        do {
            switch opcode {
            case .readIndexList:
                let indexes = ([adapter.index] + otherIndexes).sorted()
                return [.commandComplete(.init(Mgmt.ReadIndexList.self, reply: .init(indexes: indexes)))]
            case .readControllerInfo:
                let current: Mgmt.Settings = adapter.powered ? [.powered, .le, .bredr] : [.le, .bredr]
                let reply = Mgmt.ReadControllerInfo.Reply(
                    address: adapter.address, supported: adapter.supported, current: current, name: "fake")
                return [.commandComplete(.init(Mgmt.ReadControllerInfo.self, reply: reply))]
            case .setPowered:
                let on = try Mgmt.SetPowered(parameters: packet.parameters).on
                state.withLock { $0.adapter.powered = on }
                let settings: Mgmt.Settings = on ? [.powered, .le] : [.le]
                if !on {
                    let peers = state.withLock { $0.links }
                    for peer in peers { takeDown(peer) }
                }
                return [.commandComplete(.init(Mgmt.SetPowered.self, reply: .init(settings)))]
            case .startDiscovery:
                let types = try Mgmt.StartDiscovery(parameters: packet.parameters).types
                state.withLock { $0.discovering = true }
                return [
                    .commandComplete(.init(Mgmt.StartDiscovery.self, reply: .init(types))),
                    .discovering(.init(types: types, discovering: true)),
                ]
            case .stopDiscovery:
                let types = try Mgmt.StopDiscovery(parameters: packet.parameters).types
                state.withLock { $0.discovering = false }
                return [
                    .commandComplete(.init(Mgmt.StopDiscovery.self, reply: .init(types))),
                    .discovering(.init(types: types, discovering: false)),
                ]
            case .loadConnectionParameters:
                _ = try Mgmt.LoadConnectionParameters(parameters: packet.parameters)
                return [.commandComplete(.init(Mgmt.LoadConnectionParameters.self, reply: .init()))]
            case .disconnect:
                let address = try Mgmt.Disconnect(parameters: packet.parameters).address
                guard let peer = address.le, state.withLock({ $0.links.contains(peer) }) else {
                    return [.commandStatus(.init(opcode: opcode, status: .notConnected))]
                }
                // The socket that asked gets no Device Disconnected (the kernel skips it), only the reply.
                if let delay = linkDownAfterReply {
                    Thread.detachNewThread { [self] in
                        let (seconds, attoseconds) = delay.components
                        Thread.sleep(forTimeInterval: Double(seconds) + Double(attoseconds) / 1e18)
                        takeDown(peer)
                    }
                } else {
                    takeDown(peer)
                }
                return [.commandComplete(.init(Mgmt.Disconnect.self, reply: .init(address)))]
            default:
                Issue.record("the fake kernel got a command it does not expect: \(opcode)")
                return [.commandStatus(.init(opcode: opcode, status: .unknownCommand))]
            }
        } catch {
            Issue.record("malformed \(opcode): \(error)")
            return [.commandStatus(.init(opcode: opcode, status: .invalidParameters))]
        }
    }

    // MARK: - BlueZSockets

    private func record(_ entry: String, _ call: Call, on socket: Int32? = nil) throws(Errno) {
        let known = state.withLock { state -> Bool in
            state.log.append(entry)
            return socket.map { state.open.contains($0) } ?? true
        }
        if !known { Issue.record("\(entry) on socket \(socket!), which the fake did not open or already closed") }
        if let error = failures[call] { throw error }
    }

    private func pair() -> (Int32, Int32) {
        var pair: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, SocketType.seqpacket | SocketType.closeOnExec, 0, &pair) == 0 else {
            Issue.record("socketpair failed: \(Errno.current)")
            return (-1, -1)
        }
        _ = fcntl(pair[0], F_SETFL, fcntl(pair[0], F_GETFL) | O_NONBLOCK)
        state.withLock { _ = $0.open.insert(pair[0]) }
        return (pair[0], pair[1])
    }

    func openControlSocket() throws(Errno) -> Int32 {
        try record("socket(control)", .controlSocket)
        let (mine, theirs) = pair()
        state.withLock { $0.control = (mine, theirs) }
        return mine
    }

    func bindControl(_ socket: Int32) throws(Errno) {
        try record("bind(control)", .bindControl, on: socket)
        runControl(state.withLock { $0.control!.theirs })
    }

    func openL2CAPSocket() throws(Errno) -> Int32 {
        try record("socket(l2cap)", .l2capSocket)
        let (mine, theirs) = pair()
        state.withLock { $0.att.append(ATTSocket(descriptor: mine, board: theirs)) }
        return mine
    }

    private func update(_ socket: Int32, _ change: (inout ATTSocket) -> Void) {
        state.withLock { state in
            guard let index = state.att.firstIndex(where: { $0.descriptor == socket }) else { return }
            change(&state.att[index])
        }
    }

    func bindATT(_ socket: Int32, adapter address: UInt64) throws(Errno) {
        try record("bind(att \(DeviceAddress(address)))", .bindATT, on: socket)
        update(socket) { $0.boundTo = address }
    }

    func setSecurity(_ socket: Int32, level: BlueZSecurity) throws(Errno) {
        try record("security \(level.rawValue)", .security, on: socket)
        update(socket) { $0.security = level }
    }

    func setReceiveMTU(_ socket: Int32, _ mtu: UInt16) throws(Errno) {
        try record("rcvmtu \(mtu)", .receiveMTU, on: socket)
        update(socket) { $0.receiveMTU = mtu }
    }

    func connectATT(_ socket: Int32, to peer: DeviceAddress) throws(Errno) -> Bool {
        try record("connect \(DeviceAddress(peer.value))/\(peer.kind == .public ? "public" : "random")", .connect, on: socket)
        update(socket) { $0.peer = peer }
        if case .hangs = connect(peer) {
            // Never writable: fill the socket's buffer.
            var size: Int32 = 4096
            setsockopt(socket, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(4))
            let chunk = [UInt8](repeating: 0, count: 512)
            while send(socket, chunk, chunk.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL)) > 0 {}
        }
        return false
    }

    func pendingError(_ socket: Int32) -> Errno? {
        let peer = state.withLock { state -> DeviceAddress? in
            state.log.append("SO_ERROR")
            return state.att.first { $0.descriptor == socket }?.peer
        }
        guard let peer else { return Errno(ENOTCONN) }
        if case let .fails(error) = connect(peer) { return error }
        state.withLock { _ = $0.links.insert(peer) }
        return nil
    }

    func mtus(_ socket: Int32) throws(Errno) -> (send: UInt16, receive: UInt16) {
        try record("mtus", .mtus, on: socket)
        return (672, state.withLock { $0.att.first { $0.descriptor == socket }?.receiveMTU } ?? 672)
    }

    func close(_ socket: Int32) {
        let (known, board) = state.withLock { state in
            state.log.append("close")
            // The number may be reused by the next socket: a closed ATT socket's entry keeps its board, not its number.
            let index = state.att.firstIndex { $0.descriptor == socket }
            if let index, let peer = state.att[index].peer {
                state.closedWhileLinkUp[peer] = state.links.contains(peer)
            }
            let board = index.map { state.att[$0].board }
            if let index { state.att[index].descriptor = -1 }
            return (state.open.remove(socket) != nil, board.flatMap { state.served.contains($0) ? nil : $0 })
        }
        if !known { Issue.record("close of socket \(socket), which the fake did not open or already closed") }
        _ = Glibc.close(socket)
        // A board end nobody serves goes with blerig's end; a served one closes when its thread sees the end.
        if let board { closeBoard(board) }
    }

    /// Whether the kernel has an LE link to `peer` (what HCIGETCONNLIST tells ``FakeBluetoothSockets``).
    func linkExists(adapter: UInt16, peer: DeviceAddress) throws(Errno) -> Bool {
        let (index, up) = state.withLock { ($0.adapter.index, $0.links.contains(peer)) }
        guard adapter == index else { throw Errno(ENODEV) }
        return up
    }
}
