import BLECore
import BenchCore
import Glibc

/// What a failed call on the kernel's own Bluetooth path means, and what the user can do about it: the mgmt
/// socket, mgmt command statuses, and the ATT socket. No I/O here: each path is tested without a kernel.
enum BlueZFailure {
    /// The system calls, named as messages name them.
    enum Call: String, Sendable {
        case controlSocket = "socket(AF_BLUETOOTH, SOCK_RAW, BTPROTO_HCI)"
        case bindControl = "bind(HCI_CHANNEL_CONTROL)"
        case l2capSocket = "socket(AF_BLUETOOTH, SOCK_SEQPACKET, BTPROTO_L2CAP)"
        case bindATT = "bind(l2_cid 4)"
        case security = "setsockopt(BT_SECURITY)"
        case receiveMTU = "setsockopt(BT_RCVMTU)"
        case connect = "connect(l2_cid 4)"
        case mtus = "getsockopt(BT_SNDMTU, BT_RCVMTU)"
    }

    /// A system call of the mgmt or ATT path failed; `peer` is the board an ATT socket was for.
    static func call(
        _ call: Call, _ error: Errno, adapter: UInt16, peer: DeviceAddress? = nil,
        executable: String = BluetoothFailure.currentExecutable()
    ) -> HCITransportError {
        let name = "hci\(adapter)"
        let what = "\(call.rawValue) failed: \(error)"
        switch error.code {
        case EAFNOSUPPORT, EPROTONOSUPPORT:
            if call == .controlSocket || call == .l2capSocket && error.code == EAFNOSUPPORT {
                return BluetoothFailure.socket(error, executable: executable)
            }
            return HCITransportError(
                .unavailable, "this kernel's Bluetooth lacks LE L2CAP sockets: \(what)",
                fix: "load it with `sudo modprobe bluetooth`, or boot a kernel built with CONFIG_BT and CONFIG_BT_LE")
        case EPERM, EACCES:
            return HCITransportError(
                .permission, "the kernel refused blerig \(call.rawValue) on \(name): \(error)",
                fix: capabilityFix(executable))
        case EBUSY where call == .connect:
            // bluetoothctl takes the bare address, without blerig's " (random)".
            let peer = peer.map { "\(DeviceAddress($0.value))" } ?? "the board"
            return HCITransportError(
                .busy,
                "another program (bluetoothd, most likely: it connects to devices it knows) already holds the ATT "
                    + "channel of \(name)'s link to \(peer): \(what)",
                fix: "`bluetoothctl disconnect \(peer)`, and stop bluetoothd connecting to it: `bluetoothctl remove "
                    + "\(peer)` (or untrust it)")
        case EBUSY:
            return HCITransportError(.busy, "\(name) is busy: \(what)", fix: "wait for the other user, or retry")
        case ENODEV, ENETDOWN, EHOSTUNREACH, ENETUNREACH:
            return HCITransportError(
                .unavailable, "\(name) is down or gone: \(what)",
                fix: "`sudo btmgmt --index \(adapter) power on`; `blerig adapters` shows what the kernel sees")
        default:
            return HCITransportError(.io, "\(name): \(what)")
        }
    }

    /// A mgmt command was refused: the status says why.
    static func command(
        _ error: MgmtCommandError, adapter: UInt16, existing: [UInt16]? = nil,
        executable: String = BluetoothFailure.currentExecutable()
    ) -> HCITransportError {
        let name = "hci\(adapter)"
        switch error.status {
        case .permissionDenied?:
            return HCITransportError(
                .permission, "the kernel's Bluetooth management refused \(error.opcode) on \(name): it needs CAP_NET_ADMIN",
                fix: capabilityFix(executable))
        case .invalidIndex?:
            return missing(adapter, existing: existing)
        case .rfkilled?:
            return HCITransportError(
                .unavailable, "\(name) is blocked by rfkill (\(error))", fix: "`sudo rfkill unblock bluetooth`")
        case .busy?:
            return HCITransportError(
                .busy, "\(name) is busy: \(error)",
                fix: "another program is changing it (bluetoothd, btmgmt): retry, or stop that program")
        case .notPowered?:
            return HCITransportError(
                .unavailable, "\(name) is powered off (\(error))", fix: "`sudo btmgmt --index \(adapter) power on`")
        default:
            return HCITransportError(.io, "\(error)")
        }
    }

    /// The adapter is not among mgmt's controllers. `existing` are the adapters the HCI socket lists (nil when
    /// they could not be listed): one of them missing from mgmt is held through the HCI user channel.
    static func missing(_ adapter: UInt16, existing: [UInt16]?, managed: [UInt16] = []) -> HCITransportError {
        let name = "hci\(adapter)"
        if existing?.contains(adapter) == true {
            return HCITransportError(
                .busy,
                "\(name) exists but the kernel's stack does not have it: another program holds it through the HCI "
                    + "user channel (blerig with hci-user:\(adapter), Bumble, btproxy)",
                fix: "stop that program; or give blerig the adapter for itself with `hci-user:\(adapter)` instead of "
                    + "`bluez:\(name)`")
        }
        let others = managed.isEmpty ? existing ?? [] : managed
        guard !others.isEmpty else {
            return HCITransportError(
                .unavailable, "adapter \(name) does not exist; this machine has no Bluetooth adapter",
                fix: "plug in a Bluetooth controller, or look in `dmesg` for why its driver did not load")
        }
        let names = others.map { "hci\($0)" }.joined(separator: ", ")
        return HCITransportError(
            .unavailable, "adapter \(name) does not exist; the adapters here are \(names)",
            fix: "use one of them, e.g. bluez:hci\(others[0]); `blerig adapters` describes them")
    }

    /// The adapter's controller cannot do LE.
    static func noLE(_ adapter: UInt16) -> HCITransportError {
        HCITransportError(
            .unavailable, "hci\(adapter) does not support Bluetooth Low Energy",
            fix: "use a Bluetooth 4.0 or later controller")
    }

    static func capabilityFix(_ executable: String) -> String {
        "`sudo setcap cap_net_admin,cap_net_raw+ep \(executable)`, or run as root"
    }
}
