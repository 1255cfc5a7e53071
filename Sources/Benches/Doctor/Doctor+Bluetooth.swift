import BLECore
import Foundation
import Glibc
import Radios

extension Doctor {
    /// Whether the kernel has Bluetooth, the adapters it knows and who holds them, and bluetoothd.
    static func bluetooth(_ host: DoctorHost) -> (section: DoctorReport.Section, adapters: [BluetoothAdapter]?) {
        var findings: [DoctorReport.Finding] = []
        let socket: Int32
        do {
            socket = try host.sockets.openHCISocket()
        } catch {
            findings.append(noSocket(error, host: host))
            return (DoctorReport.Section("Bluetooth", findings), nil)
        }
        host.sockets.close(socket)
        findings.append(DoctorReport.Finding(.ok, "the kernel has Bluetooth: socket(AF_BLUETOOTH) opens"))
        let adapters: [BluetoothAdapter]
        do {
            adapters = try BluetoothAdapters.list(sockets: host.sockets)
        } catch {
            findings.append(DoctorReport.Finding(.problem, "the adapters cannot be listed: \(error.message)",
                fix: error.fix ?? "see `dmesg` for the Bluetooth drivers' messages"))
            return (DoctorReport.Section("Bluetooth", findings), nil)
        }
        if adapters.isEmpty {
            findings.append(
                DoctorReport.Finding(
                    .problem, "the kernel has Bluetooth but no adapter (nothing in /sys/class/bluetooth)",
                    fix: "plug in a Bluetooth controller (a USB dongle, or an nRF52840 with HCI firmware); "
                        + "`dmesg | grep -i bluetooth` says why a driver did not take one"))
        }
        let holders = hciSocketHolders(host)
        let bluetoothd = processes(named: "bluetoothd", host)
        for adapter in adapters {
            findings.append(adapterFinding(adapter, bluetoothd: !bluetoothd.isEmpty, holders: holders))
        }
        if let pid = bluetoothd.first {
            findings.append(
                DoctorReport.Finding(
                    .info, "bluetoothd runs (pid \(pid)): it powers adapters on; radio kind bluez works beside it, "
                        + "hci-user:N wants its adapter left down"))
        } else {
            findings.append(
                DoctorReport.Finding(
                    .info, "bluetoothd is not running: radio kind bluez drives the kernel's stack without it, "
                        + "hci-user:N does not need it"))
        }
        if !holders.isEmpty {
            let who = holders.map { describe($0, host) }.joined(separator: ", ")
            findings.append(DoctorReport.Finding(.info, "Bluetooth HCI sockets are open in \(who)"))
        }
        return (DoctorReport.Section("Bluetooth", findings), adapters)
    }

    private static func noSocket(_ error: Errno, host: DoctorHost) -> DoctorReport.Finding {
        switch error.code {
        case EAFNOSUPPORT, EPROTONOSUPPORT:
            let sysfs = FileManager.default.fileExists(atPath: "\(host.paths.sys)/class/bluetooth")
            return DoctorReport.Finding(
                .problem,
                "this kernel has no Bluetooth: socket(AF_BLUETOOTH) fails with \(error.name)"
                    + (sysfs ? "" : " and there is no /sys/class/bluetooth"),
                fix: "load it (`sudo modprobe bluetooth btusb`) or boot a kernel built with CONFIG_BT; in a container "
                    + "the host's kernel must have it. Until then use a radio that needs no kernel Bluetooth "
                    + "(`tcp:`/`uart:` HCI controllers, rootcanal, the virtual farm); `make kernel-tier` runs "
                    + "blerig on a kernel with Bluetooth under qemu")
        case EPERM, EACCES:
            return DoctorReport.Finding(
                .problem, "opening a Bluetooth socket is refused: \(error)",
                fix: "`sudo setcap cap_net_admin,cap_net_raw+ep \(host.executable)`, or run as root")
        default:
            return DoctorReport.Finding(
                .problem, "socket(AF_BLUETOOTH) fails: \(error)", fix: "see `dmesg` for the Bluetooth stack's messages")
        }
    }

    private static func adapterFinding(
        _ adapter: BluetoothAdapter, bluetoothd: Bool, holders: [Int32]
    ) -> DoctorReport.Finding {
        let text = "adapter \(adapter.summary)"
        if adapter.supportsLE == false {
            return DoctorReport.Finding(
                .warning, "\(text): the controller does not support LE",
                fix: "use an adapter with Bluetooth Low Energy (4.0 or later) for blerig's radios")
        }
        if adapter.isRunning && !adapter.isUp {
            // Down yet its transport open: what binding the HCI user channel leaves.
            let who = holders.isEmpty ? "" : " (HCI sockets open in pid \(holders.map(String.init).joined(separator: ", ")))"
            return DoctorReport.Finding(
                .info, "\(text): held through the HCI user channel\(who); only its holder can use it now")
        }
        if adapter.isUp {
            return DoctorReport.Finding(
                .ok,
                "\(text): up\(bluetoothd ? ", managed by bluetoothd" : ""): ready for radio kind bluez; "
                    + "hci-user:\(adapter.index) takes it down first")
        }
        return DoctorReport.Finding(
            .ok, "\(text): down and free: ready for hci-user:\(adapter.index); kind bluez powers it on")
    }

    /// The processes with an HCI socket open: the inodes `/proc/net/hci` lists, found among `/proc/*/fd`.
    static func hciSocketHolders(_ host: DoctorHost) -> [Int32] {
        guard let table = try? String(contentsOfFile: "\(host.proc)/net/hci", encoding: .utf8) else { return [] }
        // "sk RefCnt Rmem Wmem User Inode Parent": the inode is the sixth column.
        let inodes = Set(
            table.split(separator: "\n").dropFirst().compactMap { line -> String? in
                let columns = line.split(separator: " ", omittingEmptySubsequences: true)
                return columns.count >= 6 ? "socket:[\(columns[5])]" : nil
            })
        guard !inodes.isEmpty else { return [] }
        return pids(host).filter { pid in
            let directory = "\(host.proc)/\(pid)/fd"
            let entries = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
            return entries.contains { inodes.contains(readLink("\(directory)/\($0)") ?? "") }
        }
    }

    /// The pids whose `comm` is `name`.
    static func processes(named name: String, _ host: DoctorHost) -> [Int32] {
        pids(host).filter { pid in
            (try? String(contentsOfFile: "\(host.proc)/\(pid)/comm", encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines) == name
        }
    }

    static func pids(_ host: DoctorHost) -> [Int32] {
        ((try? FileManager.default.contentsOfDirectory(atPath: host.proc)) ?? []).compactMap { Int32($0) }.sorted()
    }

    /// `pid 1234 (minicom -D /dev/ttyACM0)`.
    static func describe(_ pid: Int32, _ host: DoctorHost) -> String {
        host.processes.commandLine(pid).map { "pid \(pid) (\($0))" } ?? "pid \(pid)"
    }

    static func readLink(_ path: String) -> String? {
        try? FileManager.default.destinationOfSymbolicLink(atPath: path)
    }
}
