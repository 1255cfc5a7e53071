import BLECore
import BenchCore
import Glibc

/// A board's power through its USB hub port, as uhubctl switches it: the port's sysfs `disable` file where the
/// kernel has one (Linux 6.0 and later), otherwise SET/CLEAR_FEATURE(PORT_POWER) through usbfs on a hub whose
/// wHubCharacteristics say per-port switching. A USB 3 hub's port is switched together with its USB 2
/// companion (the port's `peer` link). After power off the device behind the port must leave the bus within
/// ``goneTimeout``: a hub that keeps it enumerated does not really cut power, and ``off()`` says so.
public struct HubPowerSwitch: PowerSwitch, CustomStringConvertible {
    public let location: String
    public let port: Int
    let inventory: USBHubInventory
    let control: any HubControl
    let clock: any RigClock

    /// How long a device may take to leave the bus after its port is switched off.
    public static let goneTimeout: Duration = .seconds(3)
    static let pollInterval: Duration = .milliseconds(50)

    public init(
        location: String, port: Int, paths: SystemPaths = SystemPaths(),
        control: any HubControl = UsbfsHubControl(), clock: any RigClock
    ) {
        self.location = location
        self.port = port
        inventory = USBHubInventory(paths: paths)
        self.control = control
        self.clock = clock
    }

    public var description: String { "hub \(location) port \(port)" }

    public func on() async throws(BenchError) {
        try switchPower(on: true)
    }

    public func off() async throws(BenchError) {
        let hub = try findHub()
        let child = "\(inventory.devicesDirectory)/\(hub.childLocation(port))"
        try switchPower(on: false)
        let deadline = clock.now.advanced(by: Self.goneTimeout)
        while FileText.exists(child) {
            guard clock.now < deadline else {
                let ids = [FileText.read("\(child)/idVendor"), FileText.read("\(child)/idProduct")].compactMap(\.self)
                throw BenchError(
                    .unsupported,
                    "\(description) was switched off but the device \(hub.childLocation(port)) "
                        + "(\(ids.joined(separator: ":"))) is still on the bus after \(Self.goneTimeout.seconds) s: "
                        + "this hub does not really cut the port's power (ganged or fake switching); use a hub with "
                        + "per-port power switching")
            }
            do { try await clock.sleep(for: Self.pollInterval) } catch {
                throw BenchError(.cancelled, "power off of \(description) cancelled")
            }
        }
    }

    /// The port as the hub reports it now.
    public func status() throws(BenchError) -> HubPortStatus {
        let hub = try findHub()
        let directory = hub.portDirectory(port)
        var status = HubPortStatus(
            hub: hub, port: port,
            disabled: FileText.read("\(directory)/disable").map { $0 == "1" },
            state: FileText.read("\(directory)/state"),
            deviceEnumerated: FileText.exists("\(inventory.devicesDirectory)/\(hub.childLocation(port))"))
        if let word = try? control.portStatus(of: hub, port: port) {
            status.powered = word & (hub.isSuperSpeed ? HubRequest.powerUSB3 : HubRequest.powerUSB2) != 0
            status.connected = word & HubRequest.connection != 0
        }
        return status
    }

    func findHub() throws(BenchError) -> USBHub {
        guard let hub = inventory.hub(at: location) else {
            let known = inventory.hubs().map(\.location)
            throw BenchError(
                .missing,
                "no USB hub at \(location)"
                    + (known.isEmpty
                        ? ": this host lists no USB hubs at all (no USB bus here?)"
                        : " (hubs here: \(known.joined(separator: ", ")); `lsusb -t` shows where each sits)"))
        }
        guard (1...max(hub.portCount, 1)).contains(port), hub.portCount > 0 else {
            throw BenchError(.missing, "\(hub) has ports 1 to \(hub.portCount), not \(port)")
        }
        return hub
    }

    private func switchPower(on: Bool) throws(BenchError) {
        let hub = try findHub()
        try switchPort(of: hub, on: on)
        // A USB 3 hub is two hubs; its port's other half is linked as `peer`.
        if let peerDirectory = FileText.resolve("\(hub.portDirectory(port))/peer"),
            let peerHub = inventory.hub(directory: FileText.parent(FileText.parent(peerDirectory))),
            let peerPort = Self.portNumber(FileText.lastComponent(peerDirectory))
        {
            try HubPowerSwitch(
                location: peerHub.location, port: peerPort, paths: inventory.paths, control: control, clock: clock
            ).switchPort(of: peerHub, on: on)
        }
    }

    /// `1-1.4-port2` → 2.
    static func portNumber(_ name: String) -> Int? {
        guard let range = name.range(of: "-port", options: .backwards) else { return nil }
        return Int(name[range.upperBound...])
    }

    func switchPort(of hub: USBHub, on: Bool) throws(BenchError) {
        let disable = "\(hub.portDirectory(port))/disable"
        if FileText.exists(disable) {
            do { try FileText.write(on ? "0" : "1", to: disable) } catch {
                throw failure(error, target: disable)
            }
            return
        }
        let descriptor: [UInt8]
        do { descriptor = try control.hubDescriptor(of: hub) } catch {
            throw failure(error, target: UsbfsHubControl(paths: inventory.paths).node(of: hub))
        }
        guard let switching = PowerSwitching(hubDescriptor: descriptor) else {
            throw BenchError(.io, "\(hub) sent a hub descriptor of \(descriptor.count) bytes, too short to read")
        }
        guard switching == .perPort else {
            throw BenchError(
                .unsupported,
                "\(hub) has \(switching) (wHubCharacteristics), so port \(port) cannot be switched alone: "
                    + "use a hub with per-port power switching")
        }
        do { try control.setPortPower(of: hub, port: port, on: on) } catch {
            throw failure(error, target: UsbfsHubControl(paths: inventory.paths).node(of: hub))
        }
    }

    private func failure(_ error: SystemCallError, target: String) -> BenchError {
        switch error.code {
        case EACCES, EPERM, EROFS:
            BenchError(
                .permission,
                "no permission to switch \(description) (\(error)): install \(UdevRules.file) "
                    + "(\(UdevRules.install)), which lets the plugdev group write hubs' port `disable` files and "
                    + "usbfs nodes, or run as root")
        case ENOENT, ENODEV:
            BenchError(.gone, "\(description): \(target) went away (\(error.reason))")
        default:
            BenchError(.io, "switching \(description) failed: \(error)")
        }
    }
}

/// What a hub says about one port.
public struct HubPortStatus: Sendable, Hashable, CustomStringConvertible {
    public var hub: USBHub
    public var port: Int
    /// The `disable` file's value, where the kernel has one.
    public var disabled: Bool?
    /// The port's `state` attribute (newer kernels): `not attached`, `powered`, `configured`, ...
    public var state: String?
    /// Whether a device behind the port is on the bus.
    public var deviceEnumerated: Bool
    /// The power bit of wPortStatus, when usbfs could be asked.
    public var powered: Bool?
    public var connected: Bool?

    public var description: String {
        var parts = ["hub \(hub.location) port \(port):"]
        if let powered { parts.append(powered ? "power on" : "power off") }
        if let disabled { parts.append(disabled ? "disabled" : "enabled") }
        if let state { parts.append("state \(state)") }
        parts.append(deviceEnumerated ? "device \(hub.childLocation(port)) present" : "no device")
        return parts.joined(separator: " ")
    }
}
