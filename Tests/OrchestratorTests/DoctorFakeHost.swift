import BLECore
import BoardControl
import Foundation
import Glibc
import Radios
import Synchronization

@testable import Benches

/// A host for `blerig doctor` made of a temporary sysfs, /dev, /proc and /etc, with fake Bluetooth sockets and hub
/// requests: each test builds the machine it needs.
final class DoctorFakeHost: @unchecked Sendable {
    // @unchecked Sendable: one test's tree, built before the doctor reads it.
    let root: String
    var socketError: Int32?
    var adapters: [HCIDeviceInfo] = []
    var hubDescriptors: [String: [UInt8]] = [:]
    var fileCapabilities: FileCapabilities?
    var userID: UInt32 = 1000

    init() {
        root = NSTemporaryDirectory() + "doctor-\(UUID().uuidString)"
        for directory in ["sys/class/tty", "sys/bus/usb/devices", "dev", "proc/self", "etc/udev/rules.d", "ci"] {
            try? FileManager.default.createDirectory(atPath: "\(root)/\(directory)", withIntermediateDirectories: true)
        }
        file("proc/self/status", "Name:\tblerig\nCapEff:\t0000000000000000\n")
    }

    deinit { try? FileManager.default.removeItem(atPath: root) }

    func path(_ relative: String) -> String { "\(root)/\(relative)" }

    func file(_ relative: String, _ text: String) {
        let full = path(relative)
        try? FileManager.default.createDirectory(
            atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: full, contents: Data(text.utf8))
    }

    func link(_ relative: String, to target: String) {
        let full = path(relative)
        try? FileManager.default.createDirectory(
            atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try? FileManager.default.createSymbolicLink(atPath: full, withDestinationPath: target)
    }

    /// A USB device at `location` (`1-1.4`) under its bus's root hub, as Linux lays it out.
    @discardableResult
    func usbDevice(_ location: String, vendor: String, product: String, hub ports: Int = 0, serial: String? = nil)
        -> String
    {
        let bus = location.prefix { $0 != "-" }
        var directory = "sys/devices/pci0000:00/0000:00:14.0/usb\(bus)"
        if location.contains("-") {
            let chain = location.split(separator: "-")[1].split(separator: ".")
            for depth in 1...chain.count { directory += "/\(bus)-" + chain.prefix(depth).joined(separator: ".") }
        }
        let values = [
            "idVendor": vendor, "idProduct": product, "bDeviceClass": ports > 0 ? "09" : "00", "busnum": "\(bus)",
            "devnum": "\(location.count)", "maxchild": "\(ports)", "speed": "480",
        ]
        for (name, value) in values { file("\(directory)/\(name)", value) }
        if let serial { file("\(directory)/serial", serial) }
        link("sys/bus/usb/devices/\(location.contains("-") ? location : "usb\(location)")", to: path(directory))
        if ports > 0 {
            let interface = location.contains("-") ? "\(location):1.0" : "\(bus)-0:1.0"
            let portName = location.contains("-") ? location : "usb\(location)"
            for port in 1...ports { file("\(directory)/\(interface)/\(portName)-port\(port)/disable", "0") }
        }
        return directory
    }

    /// A CDC-ACM tty on interface 0 of the device in `directory` at `location`.
    func acm(_ tty: String, at location: String, device directory: String) {
        let interface = "\(directory)/\(location):1.0"
        try? FileManager.default.createDirectory(atPath: path("\(interface)/tty/\(tty)"), withIntermediateDirectories: true)
        link("\(interface)/tty/\(tty)/device", to: path(interface))
        link("sys/class/tty/\(tty)", to: path("\(interface)/tty/\(tty)"))
        file("dev/\(tty)", "")
    }

    /// A process with a command line, a `comm`, and descriptors pointing at `fds`.
    func process(_ pid: Int32, _ commandLine: [String], fds: [String] = []) {
        file("proc/\(pid)/cmdline", commandLine.joined(separator: "\0") + "\0")
        file("proc/\(pid)/comm", ((commandLine[0] as NSString).lastPathComponent) + "\n")
        try? FileManager.default.createDirectory(atPath: path("proc/\(pid)/fd"), withIntermediateDirectories: true)
        for (index, target) in fds.enumerated() { link("proc/\(pid)/fd/\(index + 3)", to: target) }
    }

    var host: DoctorHost {
        DoctorHost(
            paths: SystemPaths(sys: path("sys"), dev: path("dev")), proc: path("proc"),
            udevRulesDirectory: path("etc/udev/rules.d"), shippedUdevRules: path("ci/99-blerig.rules"),
            sockets: Sockets(error: socketError, adapters: adapters), hubControl: Hubs(descriptors: hubDescriptors),
            fileCapabilities: { [fileCapabilities] _ in fileCapabilities }, executable: "/opt/blerig/blerig",
            userID: userID)
    }

    struct Sockets: BluetoothSockets {
        let error: Int32?
        let adapters: [HCIDeviceInfo]
        func openHCISocket() throws(Errno) -> Int32 {
            if let error { throw Errno(error) }
            return 42
        }
        func bringDown(_ socket: Int32, adapter: UInt16) throws(Errno) { throw Errno(EPERM) }
        func bindUserChannel(_ socket: Int32, adapter: UInt16) throws(Errno) { throw Errno(EPERM) }
        func adapterIndexes(_ socket: Int32) throws(Errno) -> [UInt16] { adapters.map(\.index) }
        func adapterInfo(_ socket: Int32, adapter: UInt16) throws(Errno) -> HCIDeviceInfo {
            guard let info = adapters.first(where: { $0.index == adapter }) else { throw Errno(ENODEV) }
            return info
        }
        func linkExists(_ socket: Int32, adapter: UInt16, peer: DeviceAddress) throws(Errno) -> Bool { false }
        func close(_ socket: Int32) {}
    }

    /// Hub descriptors by hub location; a hub without one answers EACCES, as usbfs does without the udev rules.
    struct Hubs: HubControl {
        let descriptors: [String: [UInt8]]
        func hubDescriptor(of hub: USBHub) throws(SystemCallError) -> [UInt8] {
            guard let bytes = descriptors[hub.location] else { throw SystemCallError("open", code: EACCES) }
            return bytes
        }
        func portStatus(of hub: USBHub, port: Int) throws(SystemCallError) -> UInt32 { 0x0100 }
        func setPortPower(of hub: USBHub, port: Int, on: Bool) throws(SystemCallError) {
            throw SystemCallError("unexpected SET_FEATURE in a doctor test", code: EPERM)
        }
    }

    /// An adapter's HCIGETDEVINFO: `flags` bit 0 up, bit 2 running; LE in the features.
    static func adapter(_ index: UInt16, up: Bool, running: Bool) -> HCIDeviceInfo {
        HCIDeviceInfo(
            index: index, name: "hci\(index)", address: DeviceAddress(0x00_1A_7D_DA_71_10 + UInt64(index)),
            flags: (up ? 1 : 0) | (running ? 4 : 0), type: 1, features: [0xFF, 0xFF, 0, 0, 0x40, 0, 0, 0])
    }

    /// A hub descriptor with wHubCharacteristics `characteristics`.
    static func hubDescriptor(ports: UInt8, characteristics: UInt16) -> [UInt8] {
        [9, 0x29, ports, UInt8(characteristics & 0xFF), UInt8(characteristics >> 8), 50, 100, 0, 0xFF]
    }
}
