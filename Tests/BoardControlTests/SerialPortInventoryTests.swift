import BLECore
import BenchCore
import Testing

@testable import BoardControl

@Suite("Serial ports in sysfs, and following them")
struct SerialPortInventoryTests {
    @Test func portsCarryTheirUSBPlaceAndIds() {
        let sysfs = SysfsTree.bench()
        let ports = SerialPortInventory(paths: sysfs.paths).ports()
        #expect(ports.map(\.name) == ["ttyACM0", "ttyUSB0"])
        let acm = ports[0]
        #expect(acm.usbInterface == "1-1.4:1.0" && acm.usbDevice == "1-1.4")
        #expect(acm.vendorID == 0x303A && acm.productID == 0x1001 && acm.serialNumber == "F4:12:FA:00:11:22")
        #expect(acm.byID == [sysfs.tree.path("dev/serial/by-id/usb-Espressif_USB_JTAG_serial_debug_unit-if00")])
        #expect(ports[1].usbInterface == "1-1.2:1.0" && ports[1].productID == 0xEA60)
        #expect(acm.description.contains("usb:1-1.4:1.0 id:303a:1001 serial:F4:12:FA:00:11:22"))
    }

    @Test func everyKindOfNameFindsItsPort() throws {
        let sysfs = SysfsTree.bench()
        let inventory = SerialPortInventory(paths: sysfs.paths)
        let byID = sysfs.tree.path("dev/serial/by-id/usb-Espressif_USB_JTAG_serial_debug_unit-if00")
        for (text, tty) in [
            (byID, "ttyACM0"), ("usb:1-1.4", "ttyACM0"), ("usb:1-1.2:1.0", "ttyUSB0"), ("serial:0001", "ttyUSB0"),
            ("id:303a:1001", "ttyACM0"), (sysfs.tree.path("dev/ttyUSB0"), "ttyUSB0"),
        ] {
            #expect(try inventory.find(SerialPortName(parsing: text))?.name == tty, "\(text)")
        }
        #expect(try inventory.find(.usbPath("1-1.9")) == nil)
        #expect(try inventory.find(.path(sysfs.tree.path("dev/ttyACM9"))) == nil)
    }

    @Test func twoBoardsWithOneVIDPIDAreAmbiguous() throws {
        let sysfs = SysfsTree.bench()
        let second = sysfs.usbDevice("1-1.3", vendor: "303a", product: "1001", serial: "F4:12:FA:00:33:44")
        sysfs.acm("ttyACM1", at: "1-1.3", device: second)
        let error = #expect(throws: BenchError.self) {
            try SerialPortInventory(paths: sysfs.paths).find(.usbID(vendor: 0x303A, product: 0x1001))
        }
        #expect(error?.message == "id:303a:1001 fits 2 USB devices (1-1.3, 1-1.4): name the board by usb:LOCATION or serial: instead")
    }

    @Test func aPlainDevicePathIsFollowedByItsUSBPlace() throws {
        let sysfs = SysfsTree.bench()
        let inventory = SerialPortInventory(paths: sysfs.paths)
        let name = SerialPortName.path(sysfs.tree.path("dev/ttyACM0"))
        #expect(PortFollower.stableName(name, opened: try inventory.find(name)) == .usbPath("1-1.4:1.0"))
        let byID = SerialPortName.path("/dev/serial/by-id/usb-x-if00")
        #expect(PortFollower.stableName(byID, opened: nil) == byID)
    }

    @Test func aPortThatComesBackUnderAnotherNameCountsAfterOneSecond() async throws {
        let sysfs = SysfsTree.bench()
        sysfs.removeTTY("ttyACM0")
        let clock = WallClock()
        let follower = PortFollower(inventory: SerialPortInventory(paths: sysfs.paths), clock: clock)
        let device = sysfs.tree.path("\(SysfsTree.pci)/usb1/1-1/1-1.4")
        let comeBack = Task {
            try await Task.sleep(for: .milliseconds(300))
            sysfs.acm("ttyACM1", at: "1-1.4", device: String(device.dropFirst(sysfs.tree.root.count + 1)))
        }
        let started = clock.now
        let port = try await follower.waitForPort(.usbPath("1-1.4:1.0"), timeout: .seconds(5))
        try await comeBack.value
        #expect(port.name == "ttyACM1")
        let waited = started.duration(to: clock.now)
        // Back at 0.3 s, then a second of standing; the upper bound leaves room for a loaded 2-core machine.
        #expect(waited >= .milliseconds(1300) && waited < .milliseconds(4000), "\(waited)")
    }

    @Test func aPortThatNeverComesBackIsMissingAfterTheTimeout() async throws {
        let sysfs = SysfsTree.bench()
        let follower = PortFollower(inventory: SerialPortInventory(paths: sysfs.paths), clock: SteppingClock())
        let error = await #expect(throws: BenchError.self) {
            try await follower.waitForPort(.serialNumber("nobody"), timeout: .seconds(10))
        }
        #expect(error?.code == .missing)
        #expect(error?.message.contains("serial port serial:nobody did not come back") == true)
    }

    @Test func theTouchFindsTheNewBootloaderPort() async throws {
        let sysfs = SysfsTree.bench()
        let follower = PortFollower(inventory: SerialPortInventory(paths: sysfs.paths), clock: WallClock())
        let known = Set(follower.inventory.ports().map(\.devicePath))
        let boot = sysfs.usbDevice("1-1.5", vendor: "2341", product: "005a")
        let appear = Task {
            try await Task.sleep(for: .milliseconds(200))
            sysfs.acm("ttyACM3", at: "1-1.5", device: String(boot.dropFirst(0)))
        }
        let port = try await follower.waitForNewPort(notIn: known, timeout: .seconds(4))
        try await appear.value
        #expect(port?.name == "ttyACM3" && port?.productID == 0x005A)
    }
}
