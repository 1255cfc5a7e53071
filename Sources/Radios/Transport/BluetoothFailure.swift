import BenchCore
import Glibc

/// What a failed BlueZ system call means, and what the user can do about it. No I/O here: each errno path is
/// tested without a kernel.
enum BluetoothFailure {
    /// The calls that take an adapter for the user channel, named as messages name them.
    enum Call: String, Sendable {
        case bringDown = "HCIDEVDOWN"
        case bind = "bind(HCI_CHANNEL_USER)"
    }

    /// socket(AF_BLUETOOTH, SOCK_RAW, BTPROTO_HCI) failed.
    static func socket(_ error: Errno, executable: String) -> HCITransportError {
        switch error.code {
        case EAFNOSUPPORT, EPROTONOSUPPORT:
            HCITransportError(
                .unavailable, "this machine's kernel has no Bluetooth: socket(AF_BLUETOOTH) failed: \(error)",
                fix: "load it with `sudo modprobe bluetooth`, or boot a kernel built with CONFIG_BT; "
                    + "in a container, the host's kernel must provide it")
        case EPERM, EACCES:
            HCITransportError(
                .permission, "opening a Bluetooth HCI socket was refused: \(error)", fix: capabilityFix(executable))
        default:
            HCITransportError(.io, "socket(AF_BLUETOOTH, SOCK_RAW, BTPROTO_HCI) failed: \(error)")
        }
    }

    /// Taking `adapter` down or binding its user channel failed. `existing` lists the adapters there are, when
    /// the error is ENODEV and they could be listed.
    static func userChannel(
        _ error: Errno, call: Call, adapter: UInt16, existing: [UInt16]?, executable: String
    ) -> HCITransportError {
        let name = "hci\(adapter)"
        switch error.code {
        case ENODEV:
            return missing(name, existing: existing)
        case EPERM, EACCES:
            return HCITransportError(
                .permission,
                "taking \(name) for the HCI user channel needs CAP_NET_ADMIN: \(call.rawValue) failed: \(error)",
                fix: capabilityFix(executable))
        case EBUSY:
            return HCITransportError(
                .busy,
                "\(name) is in use: it is still up, or bluetoothd powered it back on (\(call.rawValue): \(error))",
                fix: "`sudo systemctl stop bluetooth`, or `sudo btmgmt --index \(adapter) power off`; or leave "
                    + "bluetoothd running and use the kernel's stack: `--radio bluez:\(name)`, "
                    + "`radio: {kind: bluez, adapter: \(name)}`")
        case EUSERS:
            return HCITransportError(
                .busy, "another program already holds the user channel of \(name): \(error)",
                fix: "stop it (another blerig, or a Bumble or btproxy on that adapter)")
        case EAFNOSUPPORT:
            return socket(error, executable: executable)
        default:
            return HCITransportError(.io, "\(call.rawValue) on \(name) failed: \(error)")
        }
    }

    /// HCIGETDEVLIST or HCIGETDEVINFO failed.
    static func listing(_ error: Errno, call: String) -> HCITransportError {
        HCITransportError(.io, "listing the Bluetooth adapters failed: \(call): \(error)")
    }

    private static func missing(_ name: String, existing: [UInt16]?) -> HCITransportError {
        guard let existing else { return HCITransportError(.unavailable, "adapter \(name) does not exist") }
        guard !existing.isEmpty else {
            return HCITransportError(
                .unavailable, "adapter \(name) does not exist; this machine has no Bluetooth adapter",
                fix: "plug in a Bluetooth controller, or look in `dmesg` for why its driver did not load")
        }
        let names = existing.map { "hci\($0)" }.joined(separator: ", ")
        return HCITransportError(
            .unavailable, "adapter \(name) does not exist; the adapters here are \(names)",
            fix: "use one of them, e.g. hci-user:\(existing[0]); `blerig adapters` describes them")
    }

    private static func capabilityFix(_ executable: String) -> String {
        "`sudo setcap cap_net_admin+ep \(executable)`, or run as root"
    }

    /// The running program's path, for the setcap fix.
    static func currentExecutable() -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return "<path of the blerig executable>" }
        return String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
