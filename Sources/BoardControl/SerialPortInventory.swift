import BenchCore

/// One serial port the kernel has, as sysfs describes it: the tty, the USB interface and device it belongs to, and
/// that device's ids (`/sys/class/tty/ttyACM0/device` → `1-1.4:1.0` → `1-1.4` with `idVendor`, `serial`, ...).
public struct SerialPortInfo: Sendable, Hashable, CustomStringConvertible {
    /// `ttyACM0`.
    public var name: String
    /// `/dev/ttyACM0` (under ``SystemPaths/dev``).
    public var devicePath: String
    /// `1-1.4:1.0`; nil for a port that is not on USB (a built-in UART).
    public var usbInterface: String?
    /// `1-1.4`.
    public var usbDevice: String? { usbInterface.map { String($0.prefix { $0 != ":" }) } }
    public var vendorID: UInt16?
    public var productID: UInt16?
    public var serialNumber: String?
    public var manufacturer: String?
    public var product: String?
    /// The `/dev/serial/by-id/...` links that point at it.
    public var byID: [String]

    public init(
        name: String, devicePath: String, usbInterface: String? = nil, vendorID: UInt16? = nil,
        productID: UInt16? = nil, serialNumber: String? = nil, manufacturer: String? = nil, product: String? = nil,
        byID: [String] = []
    ) {
        self.name = name
        self.devicePath = devicePath
        self.usbInterface = usbInterface
        self.vendorID = vendorID
        self.productID = productID
        self.serialNumber = serialNumber
        self.manufacturer = manufacturer
        self.product = product
        self.byID = byID
    }

    public var description: String {
        var text = devicePath
        if let usbInterface { text += " usb:\(usbInterface)" }
        if let vendorID, let productID {
            text += " id:\(SerialPortName.hex(vendorID)):\(SerialPortName.hex(productID))"
        }
        if let serialNumber { text += " serial:\(serialNumber)" }
        if let product { text += " '\(product)'" }
        return text
    }

    /// The interface number within its device (`1-1.4:1.2` → 2), for choosing a device's first port.
    var interfaceNumber: Int {
        usbInterface.flatMap { $0.split(separator: ".").last.flatMap { Int($0) } } ?? 0
    }
}

/// The serial ports sysfs lists: every tty under `class/tty` whose `device` link leads to hardware (USB ports
/// with their ids, others without). Virtual consoles and ptys have no `device` link and are not listed.
public struct SerialPortInventory: Sendable {
    public let paths: SystemPaths

    public init(paths: SystemPaths = SystemPaths()) { self.paths = paths }

    public func ports() -> [SerialPortInfo] {
        let byID = byIDLinks()
        return FileText.directoryEntries("\(paths.sys)/class/tty").compactMap { name in
            port(named: name, byID: byID[name] ?? [])
        }
    }

    private func port(named name: String, byID: [String]) -> SerialPortInfo? {
        let classEntry = "\(paths.sys)/class/tty/\(name)"
        guard let device = FileText.resolve("\(classEntry)/device") else { return nil }
        var info = SerialPortInfo(name: name, devicePath: "\(paths.dev)/\(name)", byID: byID)
        // ttyACM: device is the interface; ttyUSB: device is the usb-serial port below the interface.
        var directory = device
        for _ in 0..<3 {
            let last = FileText.lastComponent(directory)
            if last.contains(":"), SerialPortName.isUSBPath(last) {
                info.usbInterface = last
                let usb = FileText.parent(directory)
                info.vendorID = FileText.read("\(usb)/idVendor").flatMap { UInt16($0, radix: 16) }
                info.productID = FileText.read("\(usb)/idProduct").flatMap { UInt16($0, radix: 16) }
                info.serialNumber = FileText.read("\(usb)/serial")
                info.manufacturer = FileText.read("\(usb)/manufacturer")
                info.product = FileText.read("\(usb)/product")
                break
            }
            directory = FileText.parent(directory)
        }
        return info
    }

    /// tty name → the by-id links that resolve to it.
    private func byIDLinks() -> [String: [String]] {
        let directory = "\(paths.dev)/serial/by-id"
        var links: [String: [String]] = [:]
        for entry in FileText.directoryEntries(directory) {
            let link = "\(directory)/\(entry)"
            guard let target = FileText.resolve(link) else { continue }
            links[FileText.lastComponent(target), default: []].append(link)
        }
        return links
    }

    /// The port `name` stands for now; nil when none does. Throws when the name fits several USB devices.
    public func find(_ name: SerialPortName) throws(BenchError) -> SerialPortInfo? {
        let ports = ports()
        switch name {
        case .path(let path):
            guard let device = FileText.resolve(path) else { return nil }
            let tty = FileText.lastComponent(device)
            return ports.first { $0.name == tty }
                ?? SerialPortInfo(name: tty, devicePath: device, byID: [])
        case .usbPath(let location):
            let matches =
                location.contains(":")
                ? ports.filter { $0.usbInterface == location } : ports.filter { $0.usbDevice == location }
            return matches.min { $0.interfaceNumber < $1.interfaceNumber }
        case .serialNumber(let serial):
            return try single(ports.filter { $0.serialNumber == serial }, name: name)
        case .usbID(let vendor, let product):
            return try single(ports.filter { $0.vendorID == vendor && $0.productID == product }, name: name)
        }
    }

    /// The first port of the one USB device among `matches`.
    private func single(_ matches: [SerialPortInfo], name: SerialPortName) throws(BenchError) -> SerialPortInfo? {
        let devices = Set(matches.compactMap(\.usbDevice))
        guard devices.count <= 1 else {
            throw BenchError(
                .unsupported,
                "\(name) fits \(devices.count) USB devices (\(devices.sorted().joined(separator: ", "))): name the "
                    + "board by usb:LOCATION or serial: instead")
        }
        return matches.min { $0.interfaceNumber < $1.interfaceNumber }
    }
}
