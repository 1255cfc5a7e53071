import BenchCore
import BoardControl
import Foundation
import Glibc

extension Doctor {
    /// A hub as the doctor saw it: how it switches its ports, when its descriptor could be read.
    struct HubSeen {
        var hub: USBHub
        var switching: PowerSwitching?
        /// Whether its ports have sysfs `disable` files (Linux 6.0 and later).
        var hasDisableFiles: Bool
    }

    /// Whether there is a USB bus at all, and the serial ports sysfs lists with who holds each.
    static func serialPorts(_ host: DoctorHost) -> (section: DoctorReport.Section, ports: [SerialPortInfo]) {
        var findings: [DoctorReport.Finding] = []
        let devices = (try? FileManager.default.contentsOfDirectory(atPath: "\(host.paths.sys)/bus/usb/devices")) ?? []
        if devices.isEmpty {
            findings.append(
                DoctorReport.Finding(
                    .problem,
                    "there is no USB bus here: \(host.paths.sys)/bus/usb/devices is empty or missing (no USB host "
                        + "controller in this kernel, or a container without the host's USB)",
                    fix: "run blerig on the rig host the boards are plugged into; in a container pass the host's USB "
                        + "in (`--device /dev/bus/usb`, /sys mounted); `make kernel-tier` runs blerig against USB "
                        + "serial ports and a hub under qemu"))
        }
        let ports = SerialPortInventory(paths: host.paths).ports()
        if ports.isEmpty {
            findings.append(
                DoctorReport.Finding(
                    .info, "no serial ports: no board's USB serial port is plugged in (\(host.paths.sys)/class/tty "
                        + "lists none with a device)"))
        }
        for port in ports {
            let holders = host.processes.holders(of: port.devicePath).filter { $0 != host.processes.currentProcess }
            if holders.isEmpty {
                findings.append(DoctorReport.Finding(.ok, "\(port): free"))
            } else {
                let who = holders.map { describe($0, host) }.joined(separator: ", ")
                let modemManager = who.contains("ModemManager")
                findings.append(
                    DoctorReport.Finding(
                        .warning, "\(port): held by \(who); blerig cannot open it meanwhile",
                        fix: modemManager
                            ? "install \(UdevRules.file), which keeps ModemManager off board ports: \(UdevRules.install)"
                            : "close it (a serial monitor, another blerig) before a run"))
            }
        }
        return (DoctorReport.Section("Serial ports", findings), ports)
    }

    /// The USB hubs and whether each switches its ports' power one by one (wHubCharacteristics).
    static func hubs(_ host: DoctorHost) -> (section: DoctorReport.Section, hubs: [HubSeen]) {
        var findings: [DoctorReport.Finding] = []
        var seen: [HubSeen] = []
        for hub in USBHubInventory(paths: host.paths).hubs() {
            let disable = hub.portCount > 0 && FileManager.default.fileExists(atPath: "\(hub.portDirectory(1))/disable")
            var entry = HubSeen(hub: hub, switching: nil, hasDisableFiles: disable)
            let name = "hub \(hub.location) (\(hub.portCount) port\(hub.portCount == 1 ? "" : "s")"
                + "\(hub.isSuperSpeed ? ", USB 3" : ""))"
            let how = disable ? "switched through the ports' sysfs disable files" : "switched with SET/CLEAR_FEATURE"
            do {
                let descriptor = try host.hubControl.hubDescriptor(of: hub)
                entry.switching = PowerSwitching(hubDescriptor: descriptor)
                switch entry.switching {
                case .perPort:
                    findings.append(DoctorReport.Finding(.ok, "\(name): per-port power switching; \(how)"))
                case .some(let switching):
                    findings.append(
                        DoctorReport.Finding(
                            .info, "\(name): \(switching): blerig power cannot switch one board on it"))
                case nil:
                    findings.append(
                        DoctorReport.Finding(
                            .warning, "\(name): its hub descriptor is too short to read (\(descriptor.count) bytes)",
                            fix: "use a hub with per-port power switching for boards blerig powers"))
                }
            } catch {
                let node = UsbfsHubControl(paths: host.paths).node(of: hub)
                let permission = error.code == EACCES || error.code == EPERM
                findings.append(
                    DoctorReport.Finding(
                        permission ? .warning : .info,
                        "\(name): its descriptor cannot be read from \(node) (\(error.reason)), so whether it switches "
                            + "ports one by one is unknown" + (disable ? "; its ports have disable files" : ""),
                        fix: permission ? "install \(UdevRules.file): \(UdevRules.install), or run as root" : nil))
            }
            seen.append(entry)
        }
        if seen.isEmpty {
            findings.append(DoctorReport.Finding(.info, "no USB hubs (no root hub either: no USB bus)"))
        }
        return (DoctorReport.Section("USB hubs", findings), seen)
    }
}
