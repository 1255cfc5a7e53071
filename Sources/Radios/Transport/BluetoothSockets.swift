import BLECore
import CBlueZ
import Glibc

/// The BlueZ system calls behind the HCI user channel and the adapter list, behind a seam:
/// ``SystemBluetoothSockets`` makes them, and tests inject a fake that fails any of them with any errno.
///
/// Once bound, the user channel's descriptor is read and written like the other transports' (poll(2), recv(2)
/// and send(2)); a fake returns one end of a `SOCK_SEQPACKET` socket pair, which keeps packet boundaries as the
/// user channel does.
public protocol BluetoothSockets: Sendable {
    /// `socket(AF_BLUETOOTH, SOCK_RAW | SOCK_CLOEXEC, BTPROTO_HCI)`.
    func openHCISocket() throws(Errno) -> Int32
    /// `ioctl(HCIDEVDOWN)`: takes the adapter down, as binding its user channel requires.
    func bringDown(_ socket: Int32, adapter: UInt16) throws(Errno)
    /// `bind(2)` to `sockaddr_hci { AF_BLUETOOTH, adapter, HCI_CHANNEL_USER }`.
    func bindUserChannel(_ socket: Int32, adapter: UInt16) throws(Errno)
    /// `ioctl(HCIGETDEVLIST)`: the indexes of the adapters the kernel knows.
    func adapterIndexes(_ socket: Int32) throws(Errno) -> [UInt16]
    /// `ioctl(HCIGETDEVINFO)` for one adapter.
    func adapterInfo(_ socket: Int32, adapter: UInt16) throws(Errno) -> HCIDeviceInfo
    /// `ioctl(HCIGETCONNLIST)`: whether the kernel still has an LE link to `peer` on `adapter`, from connecting until
    /// it has handled the link's Disconnection Complete. The kernel tells btmon of each raw socket that makes an
    /// ioctl ("RAW Open"), so a caller that polls keeps one socket for it.
    func linkExists(_ socket: Int32, adapter: UInt16, peer: DeviceAddress) throws(Errno) -> Bool
    /// `close(2)`.
    func close(_ socket: Int32)
}

/// The fields of `struct hci_dev_info` that blerig reads.
public struct HCIDeviceInfo: Hashable, Sendable {
    public var index: UInt16
    /// `hci0`.
    public var name: String
    public var address: DeviceAddress
    /// The kernel's device flags: bit 0 HCI_UP, bit 1 HCI_INIT, bit 2 HCI_RUNNING, …
    public var flags: UInt32
    /// The bus in the low four bits (HCI_USB, HCI_UART, …), the controller type in bits 4–5.
    public var type: UInt8
    /// LMP features page 0 (Core 5.4 Vol 2 Part C §3.3), as read when the controller was last initialised.
    public var features: [UInt8]

    public init(
        index: UInt16, name: String, address: DeviceAddress, flags: UInt32, type: UInt8, features: [UInt8]
    ) {
        self.index = index
        self.name = name
        self.address = address
        self.flags = flags
        self.type = type
        self.features = features
    }
}

/// The real system calls, through libbluetooth's headers.
public struct SystemBluetoothSockets: BluetoothSockets {
    public init() {}

    public func openHCISocket() throws(Errno) -> Int32 {
        let socket = Glibc.socket(AF_BLUETOOTH, SocketType.raw | SocketType.closeOnExec, BTPROTO_HCI)
        guard socket >= 0 else { throw .current }
        return socket
    }

    public func bringDown(_ socket: Int32, adapter: UInt16) throws(Errno) {
        guard ioctl(socket, blerig_hcidevdown(), CInt(adapter)) == 0 else { throw .current }
    }

    public func bindUserChannel(_ socket: Int32, adapter: UInt16) throws(Errno) {
        var address = sockaddr_hci()
        address.hci_family = sa_family_t(AF_BLUETOOTH)
        address.hci_dev = adapter
        address.hci_channel = blerig_hci_channel_user()
        let result = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socket, $0, socklen_t(MemoryLayout<sockaddr_hci>.size))
            }
        }
        guard result == 0 else { throw .current }
    }

    public func adapterIndexes(_ socket: Int32) throws(Errno) -> [UInt16] {
        var indexes = [UInt16](repeating: 0, count: Int(HCI_MAX_DEV))
        let count = blerig_hci_dev_list(socket, &indexes, UInt16(HCI_MAX_DEV))
        guard count >= 0 else { throw .current }
        return Array(indexes.prefix(Int(count)))
    }

    public func adapterInfo(_ socket: Int32, adapter: UInt16) throws(Errno) -> HCIDeviceInfo {
        var info = hci_dev_info()
        info.dev_id = adapter
        guard ioctl(socket, blerig_hcigetdevinfo(), &info) == 0 else { throw .current }
        let name = withUnsafeBytes(of: info.name) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        let address = withUnsafeBytes(of: info.bdaddr.b) { raw in
            raw.reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        }
        return HCIDeviceInfo(
            index: info.dev_id, name: name, address: DeviceAddress(address), flags: info.flags, type: info.type,
            features: withUnsafeBytes(of: info.features) { Array($0) })
    }

    public func linkExists(_ socket: Int32, adapter: UInt16, peer: DeviceAddress) throws(Errno) -> Bool {
        let address = (0..<6).map { UInt8(truncatingIfNeeded: peer.value >> UInt64(8 * $0)) }
        let found = blerig_hci_has_le_connection(socket, adapter, address)
        guard found >= 0 else { throw .current }
        return found == 1
    }

    public func close(_ socket: Int32) { _ = Glibc.close(socket) }
}
