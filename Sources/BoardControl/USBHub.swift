/// A USB hub as sysfs shows it, addressed as uhubctl does: by location (`1-1.4`; a bus number alone, `1`, for the
/// bus's root hub) and port number from 1.
public struct USBHub: Sendable, Hashable, CustomStringConvertible {
    /// `1-1.4`, or `1` for the root hub of bus 1.
    public var location: String
    /// The hub's directory in sysfs (`.../usb1/1-1/1-1.4`).
    public var directory: String
    /// Its sysfs name: `1-1.4`, `usb1` for a root hub.
    public var sysfsName: String
    public var bus: Int
    public var device: Int
    /// `maxchild`: how many downstream ports it has.
    public var portCount: Int
    /// The USB 3 half of a hub (SuperSpeed): its port status has the power bit at 0x0200, not 0x0100.
    public var isSuperSpeed: Bool

    public var description: String { "hub \(location)" }

    /// The hub's interface directory, `1-1.4:1.0` (`1-0:1.0` for a root hub).
    public var interfaceDirectory: String {
        let name = sysfsName.hasPrefix("usb") ? "\(bus)-0:1.0" : "\(sysfsName):1.0"
        return "\(directory)/\(name)"
    }

    /// The port's directory, `.../1-1.4:1.0/1-1.4-port2` (`usb1-port2` on a root hub).
    public func portDirectory(_ port: Int) -> String { "\(interfaceDirectory)/\(sysfsName)-port\(port)" }

    /// The location of the device behind `port`: `1-1.4.2`, or `1-2` behind a root hub.
    public func childLocation(_ port: Int) -> String {
        sysfsName.hasPrefix("usb") ? "\(bus)-\(port)" : "\(sysfsName).\(port)"
    }
}

/// The hubs sysfs lists under `bus/usb/devices`: every device of class 09.
public struct USBHubInventory: Sendable {
    public let paths: SystemPaths

    public init(paths: SystemPaths = SystemPaths()) { self.paths = paths }

    public var devicesDirectory: String { "\(paths.sys)/bus/usb/devices" }

    /// Every hub, root hubs included.
    public func hubs() -> [USBHub] {
        FileText.directoryEntries(devicesDirectory).compactMap { name in
            name.contains(":") ? nil : hub(sysfsName: name)
        }
    }

    /// The hub at `location` (`1-1.4`, or `1` for bus 1's root hub); nil when no hub is there.
    public func hub(at location: String) -> USBHub? {
        hub(sysfsName: location.contains("-") ? location : "usb\(location)")
    }

    /// The hub whose directory is `directory` (a resolved sysfs path), for following a `peer` link.
    func hub(directory: String) -> USBHub? {
        hub(sysfsName: FileText.lastComponent(directory))
    }

    private func hub(sysfsName: String) -> USBHub? {
        let link = "\(devicesDirectory)/\(sysfsName)"
        guard let directory = FileText.resolve(link),
            FileText.read("\(directory)/bDeviceClass") == "09",
            let bus = FileText.read("\(directory)/busnum").flatMap({ Int($0) }),
            let device = FileText.read("\(directory)/devnum").flatMap({ Int($0) })
        else { return nil }
        let location = sysfsName.hasPrefix("usb") ? String(sysfsName.dropFirst(3)) : sysfsName
        let speed = FileText.read("\(directory)/speed").flatMap { Int($0) } ?? 480
        return USBHub(
            location: location, directory: directory, sysfsName: sysfsName, bus: bus, device: device,
            portCount: FileText.read("\(directory)/maxchild").flatMap { Int($0) } ?? 0,
            isSuperSpeed: speed >= 5000)
    }
}
