import BLECore
import CBlueZ
import Glibc

/// The system calls of the kernel's own Bluetooth path (`radio: {kind: bluez}`), behind a seam:
/// ``SystemBlueZSockets`` makes them, tests inject a fake that fails any of them with any errno.
///
/// Only the set-up calls go through it. Once open, a descriptor is read and written with poll(2), recv(2) and
/// send(2) (``SeqpacketChannel``), so a fake returns one end of a `SOCK_SEQPACKET` socket pair and plays the
/// kernel on the other end: mgmt packets on the control socket, ATT PDUs on an L2CAP socket.
public protocol BlueZSockets: Sendable {
    /// `socket(AF_BLUETOOTH, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, BTPROTO_HCI)`.
    func openControlSocket() throws(Errno) -> Int32
    /// `bind(2)` to `sockaddr_hci { AF_BLUETOOTH, HCI_DEV_NONE, HCI_CHANNEL_CONTROL }`: the mgmt interface.
    func bindControl(_ socket: Int32) throws(Errno)
    /// `socket(AF_BLUETOOTH, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, BTPROTO_L2CAP)`.
    func openL2CAPSocket() throws(Errno) -> Int32
    /// `bind(2)` to `sockaddr_l2 { l2_bdaddr = adapter, l2_cid = 4, l2_bdaddr_type = BDADDR_LE_PUBLIC }`: the ATT
    /// fixed channel on the adapter with that address (0 for any).
    func bindATT(_ socket: Int32, adapter address: UInt64) throws(Errno)
    /// `setsockopt(SOL_BLUETOOTH, BT_SECURITY, struct bt_security { level })`.
    func setSecurity(_ socket: Int32, level: BlueZSecurity) throws(Errno)
    /// `setsockopt(SOL_BLUETOOTH, BT_RCVMTU, u16)`: the largest L2CAP SDU this side takes.
    func setReceiveMTU(_ socket: Int32, _ mtu: UInt16) throws(Errno)
    /// `connect(2)` to `sockaddr_l2 { l2_bdaddr = peer, l2_cid = 4, l2_bdaddr_type = 1 public / 2 random }` on a
    /// non-blocking socket: true when connected at once, false when in progress (EINPROGRESS); any other errno
    /// is thrown.
    func connectATT(_ socket: Int32, to peer: DeviceAddress) throws(Errno) -> Bool
    /// `getsockopt(SOL_SOCKET, SO_ERROR)`: how a non-blocking connect ended (nil: connected).
    func pendingError(_ socket: Int32) -> Errno?
    /// `getsockopt(SOL_BLUETOOTH, BT_SNDMTU)` and `BT_RCVMTU` of a connected socket.
    func mtus(_ socket: Int32) throws(Errno) -> (send: UInt16, receive: UInt16)
    /// `close(2)`.
    func close(_ socket: Int32)
}

/// The `BT_SECURITY` level of an ATT socket: what the kernel's SMP must reach before the channel is ready.
public enum BlueZSecurity: UInt8, Sendable, Hashable, CaseIterable {
    /// No encryption (BT_SECURITY_LOW), the ATT default.
    case low = 1
    /// Encrypted, unauthenticated pairing allowed (Just Works).
    case medium = 2
    /// Encrypted with an authenticated (MITM-protected) key.
    case high = 3
    /// Secure Connections only, 128-bit keys.
    case fips = 4
}

/// The real system calls, through libbluetooth's headers.
public struct SystemBlueZSockets: BlueZSockets {
    public init() {}

    public func openControlSocket() throws(Errno) -> Int32 {
        let flags = SocketType.raw | SocketType.closeOnExec | SocketType.nonBlocking
        let socket = Glibc.socket(AF_BLUETOOTH, flags, BTPROTO_HCI)
        guard socket >= 0 else { throw .current }
        return socket
    }

    public func bindControl(_ socket: Int32) throws(Errno) {
        var address = sockaddr_hci()
        address.hci_family = sa_family_t(AF_BLUETOOTH)
        address.hci_dev = blerig_hci_dev_none()
        address.hci_channel = blerig_hci_channel_control()
        let result = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socket, $0, socklen_t(MemoryLayout<sockaddr_hci>.size))
            }
        }
        guard result == 0 else { throw .current }
    }

    public func openL2CAPSocket() throws(Errno) -> Int32 {
        let flags = SocketType.seqpacket | SocketType.closeOnExec | SocketType.nonBlocking
        let socket = Glibc.socket(AF_BLUETOOTH, flags, BTPROTO_L2CAP)
        guard socket >= 0 else { throw .current }
        return socket
    }

    public func bindATT(_ socket: Int32, adapter address: UInt64) throws(Errno) {
        var local = Self.attAddress(address, type: UInt8(BDADDR_LE_PUBLIC))
        let result = withUnsafePointer(to: &local) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socket, $0, socklen_t(MemoryLayout<sockaddr_l2>.size))
            }
        }
        guard result == 0 else { throw .current }
    }

    public func setSecurity(_ socket: Int32, level: BlueZSecurity) throws(Errno) {
        var security = bt_security()
        security.level = level.rawValue
        let size = socklen_t(MemoryLayout<bt_security>.size)
        guard setsockopt(socket, SOL_BLUETOOTH, BT_SECURITY, &security, size) == 0 else { throw .current }
    }

    public func setReceiveMTU(_ socket: Int32, _ mtu: UInt16) throws(Errno) {
        var value = mtu
        guard setsockopt(socket, SOL_BLUETOOTH, BT_RCVMTU, &value, 2) == 0 else { throw .current }
    }

    public func connectATT(_ socket: Int32, to peer: DeviceAddress) throws(Errno) -> Bool {
        let type = UInt8(peer.kind == .public ? BDADDR_LE_PUBLIC : BDADDR_LE_RANDOM)
        var remote = Self.attAddress(peer.value, type: type)
        let result = withUnsafePointer(to: &remote) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(socket, $0, socklen_t(MemoryLayout<sockaddr_l2>.size))
            }
        }
        if result == 0 { return true }
        let error = Errno.current
        guard error.code == EINPROGRESS else { throw error }
        return false
    }

    public func pendingError(_ socket: Int32) -> Errno? {
        var value: Int32 = 0
        var size = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(socket, SOL_SOCKET, SO_ERROR, &value, &size) == 0 else { return .current }
        return value == 0 ? nil : Errno(value)
    }

    public func mtus(_ socket: Int32) throws(Errno) -> (send: UInt16, receive: UInt16) {
        func read(_ option: Int32) throws(Errno) -> UInt16 {
            var value: UInt16 = 0
            var size = socklen_t(2)
            guard getsockopt(socket, SOL_BLUETOOTH, option, &value, &size) == 0 else { throw .current }
            return value
        }
        return (try read(BT_SNDMTU), try read(BT_RCVMTU))
    }

    public func close(_ socket: Int32) { _ = Glibc.close(socket) }

    /// `sockaddr_l2` for the ATT channel; the address's bytes least significant first, as bdaddr_t holds them.
    private static func attAddress(_ value: UInt64, type: UInt8) -> sockaddr_l2 {
        var address = sockaddr_l2()
        address.l2_family = sa_family_t(AF_BLUETOOTH)
        address.l2_cid = UInt16(4).littleEndian
        address.l2_bdaddr_type = type
        withUnsafeMutableBytes(of: &address.l2_bdaddr.b) { raw in
            for i in 0..<6 { raw[i] = UInt8(truncatingIfNeeded: value >> UInt64(8 * i)) }
        }
        return address
    }
}
