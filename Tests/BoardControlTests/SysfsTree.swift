@testable import BoardControl

/// A sysfs and /dev made of real files, shaped as Linux 6.x lays them out for an ESP32-S3's USB-Serial/JTAG port
/// (ttyACM0 at 1-1.4:1.0), a CP2102 bridge (ttyUSB0 at 1-1.2:1.0), a virtual console, and USB hubs.
final class SysfsTree {
    let tree = TemporaryTree()
    var paths: SystemPaths { SystemPaths(sys: tree.path("sys"), dev: tree.path("dev")) }
    static let pci = "sys/devices/pci0000:00/0000:00:14.0"

    init() {
        tree.directory("sys/class/tty")
        tree.directory("sys/bus/usb/devices")
        tree.directory("dev/serial/by-id")
    }

    /// A USB device at `location` (`1-1.4`) under bus `bus`'s root hub directory.
    @discardableResult
    func usbDevice(
        _ location: String, vendor: String, product: String, serial: String? = nil, name: String? = nil,
        hubClass: Bool = false, devnum: Int = 7, maxchild: Int = 0, speed: Int = 480
    ) -> String {
        let bus = location.prefix { $0 != "-" }
        var directory = "\(Self.pci)/usb\(bus)"
        if location.contains("-") {
            let path = location.split(separator: "-")[1].split(separator: ".")
            for depth in 1...path.count { directory += "/\(bus)-" + path.prefix(depth).joined(separator: ".") }
        }
        tree.file("\(directory)/idVendor", vendor)
        tree.file("\(directory)/idProduct", product)
        if let serial { tree.file("\(directory)/serial", serial) }
        if let name { tree.file("\(directory)/product", name) }
        tree.file("\(directory)/bDeviceClass", hubClass ? "09" : "00")
        tree.file("\(directory)/busnum", String(bus))
        tree.file("\(directory)/devnum", "\(devnum)")
        tree.file("\(directory)/maxchild", "\(maxchild)")
        tree.file("\(directory)/speed", "\(speed)")
        let sysName = location.contains("-") ? location : "usb\(location)"
        tree.link("sys/bus/usb/devices/\(sysName)", to: tree.path(directory))
        return directory
    }

    /// A CDC-ACM tty on interface 0 of the device at `location`.
    func acm(_ tty: String, at location: String, device: String, interface: Int = 0) {
        let interfaceDirectory = "\(device)/\(location):1.\(interface)"
        tree.directory("\(interfaceDirectory)/tty/\(tty)")
        tree.link("\(interfaceDirectory)/tty/\(tty)/device", to: tree.path(interfaceDirectory))
        tree.link("sys/class/tty/\(tty)", to: tree.path("\(interfaceDirectory)/tty/\(tty)"))
        tree.file("dev/\(tty)", "")
    }

    /// A usb-serial tty (ttyUSB): one directory deeper than an ACM port.
    func usbSerial(_ tty: String, at location: String, device: String) {
        let port = "\(device)/\(location):1.0/\(tty)"
        tree.directory("\(port)/tty/\(tty)")
        tree.link("\(port)/tty/\(tty)/device", to: tree.path(port))
        tree.link("sys/class/tty/\(tty)", to: tree.path("\(port)/tty/\(tty)"))
        tree.file("dev/\(tty)", "")
    }

    func removeTTY(_ tty: String) {
        tree.removeItem("sys/class/tty/\(tty)")
        tree.removeItem("dev/\(tty)")
    }

    /// The standard bench: an ESP32-S3 on 1-1.4, a CP2102 on 1-1.2, tty0 without a device.
    static func bench() -> SysfsTree {
        let sysfs = SysfsTree()
        let esp = sysfs.usbDevice(
            "1-1.4", vendor: "303a", product: "1001", serial: "F4:12:FA:00:11:22", name: "USB JTAG/serial debug unit")
        sysfs.acm("ttyACM0", at: "1-1.4", device: esp)
        let cp = sysfs.usbDevice("1-1.2", vendor: "10c4", product: "ea60", serial: "0001", name: "CP2102 USB to UART")
        sysfs.usbSerial("ttyUSB0", at: "1-1.2", device: cp)
        sysfs.tree.directory("sys/devices/virtual/tty/tty0")
        sysfs.tree.link("sys/class/tty/tty0", to: sysfs.tree.path("sys/devices/virtual/tty/tty0"))
        sysfs.tree.link("dev/serial/by-id/usb-Espressif_USB_JTAG_serial_debug_unit-if00", to: "../../ttyACM0")
        return sysfs
    }
}
