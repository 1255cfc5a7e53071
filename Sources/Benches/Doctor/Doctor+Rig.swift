import BenchCore
import BoardControl
import Foundation
import Orchestrator
import Radios

extension Doctor {
    /// What the doctor already saw of the host, for resolving a rig's bindings against it.
    struct HostSeen {
        /// Nil when the kernel has no Bluetooth (or the adapters could not be listed).
        var adapters: [BluetoothAdapter]?
        var hubs: [HubSeen]
    }

    /// Each binding of the rig resolved: its radios' adapters or devices, its boards' serial ports and hub ports.
    static func rig(_ rig: RigConfig, file: String, host: DoctorHost, seen: HostSeen) -> DoctorReport.Section {
        var findings: [DoctorReport.Finding] = []
        for radio in rig.radios { findings.append(resolve(radio, seen: seen, host: host)) }
        for board in rig.boards {
            let name = "board '\(board.id)'"
            if let serial = board.serial { findings.append(resolve(serial, of: name, host: host)) }
            if let power = board.power { findings.append(resolve(power, of: name, seen: seen)) }
            if board.serial == nil && board.power == nil {
                findings.append(DoctorReport.Finding(.info, "\(name): found on the air only (no serial port, no hub port)"))
            }
        }
        return DoctorReport.Section("Rig \(file) (\(rig.name))", findings)
    }

    private static func unresolved(_ text: String, fix: String) -> DoctorReport.Finding {
        DoctorReport.Finding(.problem, text, fix: fix, unresolvedBinding: true)
    }

    private static func resolve(_ radio: RadioConfig, seen: HostSeen, host: DoctorHost) -> DoctorReport.Finding {
        let name = "radio '\(radio.id)' (\(radio.location.lineAndColumn))"
        switch radio.kind {
        case .virtual, .rootcanal:
            return DoctorReport.Finding(.ok, "\(name): \(radio.kindName), nothing on this host to resolve")
        case .hci(.tcp(let host, let port)):
            return DoctorReport.Finding(.info, "\(name): tcp:\(host):\(port), a controller the doctor does not dial")
        case .hci(.uart(let path, _, _)):
            let device = host.device(path)
            return FileManager.default.fileExists(atPath: device)
                ? DoctorReport.Finding(.ok, "\(name): UART controller \(path) is there")
                : unresolved(
                    "\(name): UART controller \(path) does not exist",
                    fix: "plug the controller in, or correct the path (`ls /dev/serial/by-id/`)")
        case .bluez(let adapter):
            return resolveAdapter(adapter, name: name, userChannel: false, seen: seen)
        case .hci(.hciUser(let index)):
            return resolveAdapter("hci\(index)", name: name, userChannel: true, seen: seen)
        }
    }

    private static func resolveAdapter(
        _ adapter: String, name: String, userChannel: Bool, seen: HostSeen
    ) -> DoctorReport.Finding {
        guard let adapters = seen.adapters else {
            return unresolved(
                "\(name): adapter \(adapter) cannot exist: the kernel has no Bluetooth (see above)",
                fix: "run the rig on a host whose kernel has Bluetooth and the adapter plugged in")
        }
        guard let found = adapters.first(where: { $0.name == adapter }) else {
            let here = adapters.map(\.name).joined(separator: ", ")
            return unresolved(
                "\(name): adapter \(adapter) does not exist (adapters here: \(here.isEmpty ? "none" : here))",
                fix: here.isEmpty ? "plug in the Bluetooth controller" : "use one of \(here) in the rig")
        }
        if userChannel && found.isRunning && !found.isUp {
            return DoctorReport.Finding(
                .warning, "\(name): \(found.summary): already held through the HCI user channel",
                fix: "stop the program that holds it (see the HCI sockets above) before the run")
        }
        return DoctorReport.Finding(.ok, "\(name): \(found.summary)")
    }

    private static func resolve(_ serial: BoardConfig.Serial, of board: String, host: DoctorHost) -> DoctorReport.Finding {
        let place = "\(board) serial \(serial.port) (\(serial.location.lineAndColumn))"
        let parsed: SerialPortName
        do { parsed = try SerialPortName(parsing: serial.port) } catch {
            return unresolved("\(place): \(error.message)", fix: "write the port as /dev/..., usb:, serial: or id:")
        }
        let name: SerialPortName = if case .path(let path) = parsed { .path(host.device(path)) } else { parsed }
        let inventory = SerialPortInventory(paths: host.paths)
        let found: SerialPortInfo?
        do { found = try inventory.find(name) } catch {
            return unresolved("\(place): \(error.message)", fix: "name the board by usb:LOCATION or serial:SN")
        }
        guard let found, FileManager.default.fileExists(atPath: found.devicePath) else {
            let here = inventory.ports().map(\.description).joined(separator: "; ")
            return unresolved(
                "\(place): no serial port answers to it (ports here: \(here.isEmpty ? "none" : here))",
                fix: "plug the board in, or name it as `blerig discover` lists it")
        }
        return DoctorReport.Finding(.ok, "\(place) → \(found), reset \(serial.reset)")
    }

    private static func resolve(_ power: BoardConfig.Power, of board: String, seen: HostSeen) -> DoctorReport.Finding {
        let place = "\(board) power hub \(power.hub) port \(power.port) (\(power.location.lineAndColumn))"
        guard let hub = seen.hubs.first(where: { $0.hub.location == power.hub }) else {
            let here = seen.hubs.map(\.hub.location).joined(separator: ", ")
            return unresolved(
                "\(place): no USB hub at \(power.hub) (hubs here: \(here.isEmpty ? "none" : here))",
                fix: "`lsusb -t` shows where each hub sits; write its location as bus-port.port (1-1.4)")
        }
        guard (1...max(1, hub.hub.portCount)).contains(power.port), hub.hub.portCount > 0 else {
            return unresolved(
                "\(place): hub \(power.hub) has ports 1 to \(hub.hub.portCount)", fix: "correct the port in the rig")
        }
        switch hub.switching {
        case .some(.perPort):
            return DoctorReport.Finding(.ok, "\(place): per-port power switching")
        case .some(let switching):
            return unresolved(
                "\(place): the hub has \(switching), so this port cannot be switched alone",
                fix: "move the board to a hub with per-port power switching (uhubctl's list of compatible hubs)")
        case nil where hub.hasDisableFiles:
            return DoctorReport.Finding(.ok, "\(place): the port has a sysfs disable file (switching mode unread)")
        case nil:
            return DoctorReport.Finding(
                .warning, "\(place): the hub's switching mode could not be read",
                fix: "install \(UdevRules.file) (\(UdevRules.install)) or run as root, and run blerig doctor again")
        }
    }
}
