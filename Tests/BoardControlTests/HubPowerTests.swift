import BLECore
import BenchCore
import Glibc
import Synchronization
import Testing

@testable import BoardControl

@Suite("Hub port power")
struct HubPowerTests {
    /// Hub requests answered from a table, every switch recorded.
    final class FakeHubs: HubControl {
        let descriptor: [UInt8]
        let failure: Int32?
        let status: UInt32
        let switched = Mutex<[String]>([])

        init(characteristics: UInt16 = 0x00E9, failure: Int32? = nil, status: UInt32 = 0x0103) {
            descriptor = [9, 0x29, 4, UInt8(characteristics & 0xFF), UInt8(characteristics >> 8), 50, 100, 0, 0xFF]
            self.failure = failure
            self.status = status
        }

        func hubDescriptor(of hub: USBHub) throws(SystemCallError) -> [UInt8] {
            if let failure { throw SystemCallError("open /dev/bus/usb/001/005", code: failure) }
            return descriptor
        }

        func portStatus(of hub: USBHub, port: Int) throws(SystemCallError) -> UInt32 { status }

        func setPortPower(of hub: USBHub, port: Int, on: Bool) throws(SystemCallError) {
            switched.withLock { $0.append("\(hub.location) port \(port) \(on ? "on" : "off")") }
        }
    }

    /// Bus 1: root hub (2 ports) → hub 1-1.4 (4 ports, `disable` files; port 2 peered with USB 3 hub 2-1.4's
    /// port 2) with an ESP32 on port 2; hub 1-1.3 (an older kernel: no `disable` files).
    static func bench(device: Bool = true) -> SysfsTree {
        let sysfs = SysfsTree()
        let root = sysfs.usbDevice("1", vendor: "1d6b", product: "0002", hubClass: true, devnum: 1, maxchild: 2)
        for port in 1...2 { sysfs.tree.file("\(root)/1-0:1.0/usb1-port\(port)/disable", "0") }
        let hub = sysfs.usbDevice("1-1.4", vendor: "2109", product: "2817", hubClass: true, devnum: 5, maxchild: 4)
        for port in 1...4 { sysfs.tree.file("\(hub)/1-1.4:1.0/1-1.4-port\(port)/disable", "0") }
        let hub3 = sysfs.usbDevice(
            "2-1.4", vendor: "2109", product: "0817", hubClass: true, devnum: 3, maxchild: 4, speed: 5000)
        for port in 1...4 { sysfs.tree.file("\(hub3)/2-1.4:1.0/2-1.4-port\(port)/disable", "0") }
        sysfs.tree.link(
            "\(hub)/1-1.4:1.0/1-1.4-port2/peer", to: sysfs.tree.path("\(hub3)/2-1.4:1.0/2-1.4-port2"))
        let old = sysfs.usbDevice("1-1.3", vendor: "05e3", product: "0608", hubClass: true, devnum: 4, maxchild: 4)
        for port in 1...4 { sysfs.tree.directory("\(old)/1-1.3:1.0/1-1.3-port\(port)") }
        if device { sysfs.usbDevice("1-1.4.2", vendor: "303a", product: "1001", devnum: 9) }
        return sysfs
    }

    func disable(_ sysfs: SysfsTree, _ hub: String, _ port: Int) -> String? {
        let inventory = USBHubInventory(paths: sysfs.paths)
        return inventory.hub(at: hub).flatMap { FileText.read("\($0.portDirectory(port))/disable") }
    }

    @Test func hubsAreFoundByLocationRootHubsByBusNumber() {
        let sysfs = Self.bench()
        let inventory = USBHubInventory(paths: sysfs.paths)
        #expect(inventory.hubs().map(\.location) == ["1-1.3", "1-1.4", "2-1.4", "1"])
        let root = inventory.hub(at: "1")
        #expect(root?.portDirectory(2).hasSuffix("usb1/1-0:1.0/usb1-port2") == true)
        #expect(root?.childLocation(2) == "1-2")
        #expect(inventory.hub(at: "1-1.4")?.childLocation(2) == "1-1.4.2")
        #expect(inventory.hub(at: "2-1.4")?.isSuperSpeed == true)
        #expect(inventory.hub(at: "1-1.4.2") == nil, "a device that is no hub")
    }

    @Test func offAndOnWriteTheDisableFilesOfBothHalves() async throws {
        let sysfs = Self.bench(device: false)
        let power = HubPowerSwitch(location: "1-1.4", port: 2, paths: sysfs.paths, control: FakeHubs(), clock: SteppingClock())
        try await power.off()
        #expect(disable(sysfs, "1-1.4", 2) == "1" && disable(sysfs, "2-1.4", 2) == "1")
        #expect(disable(sysfs, "1-1.4", 1) == "0")
        try await power.on()
        #expect(disable(sysfs, "1-1.4", 2) == "0" && disable(sysfs, "2-1.4", 2) == "0")
    }

    @Test func aDeviceThatStaysEnumeratedMeansTheHubDoesNotCutPower() async throws {
        let sysfs = Self.bench(device: true)
        let clock = SteppingClock()
        let power = HubPowerSwitch(location: "1-1.4", port: 2, paths: sysfs.paths, control: FakeHubs(), clock: clock)
        let error = await #expect(throws: BenchError.self) { try await power.off() }
        #expect(error?.code == .unsupported)
        #expect(error?.message.hasPrefix(
            "hub 1-1.4 port 2 was switched off but the device 1-1.4.2 (303a:1001) is still on the bus after 3.0 s") == true)
        #expect(clock.now.sinceOrigin >= HubPowerSwitch.goneTimeout)
    }

    @Test func withoutDisableFilesAPerPortHubGetsThePortPowerRequest() async throws {
        let sysfs = Self.bench()
        let hubs = FakeHubs(characteristics: 0x0009)
        let power = HubPowerSwitch(location: "1-1.3", port: 3, paths: sysfs.paths, control: hubs, clock: SteppingClock())
        try await power.off()
        try await power.on()
        #expect(hubs.switched.withLock { $0 } == ["1-1.3 port 3 off", "1-1.3 port 3 on"])
    }

    @Test func aGangedHubIsRefusedWithWhy() async throws {
        let sysfs = Self.bench()
        let hubs = FakeHubs(characteristics: 0x0000)
        let power = HubPowerSwitch(location: "1-1.3", port: 1, paths: sysfs.paths, control: hubs, clock: SteppingClock())
        let error = await #expect(throws: BenchError.self) { try await power.on() }
        #expect(error?.code == .unsupported)
        #expect(error?.message.contains("ganged power switching (all ports at once)") == true)
        #expect(hubs.switched.withLock { $0 }.isEmpty)
    }

    @Test func aPermissionErrorNamesTheUdevRule() async throws {
        let sysfs = Self.bench()
        let power = HubPowerSwitch(
            location: "1-1.3", port: 1, paths: sysfs.paths, control: FakeHubs(failure: EACCES), clock: SteppingClock())
        let error = await #expect(throws: BenchError.self) { try await power.off() }
        #expect(error?.code == .permission)
        #expect(error?.message.contains("install ci/udev/99-blerig.rules") == true)
    }

    @Test func aMissingHubOrPortSaysWhatThereIs() async throws {
        let sysfs = Self.bench()
        let missing = HubPowerSwitch(location: "3-1", port: 1, paths: sysfs.paths, clock: SteppingClock())
        let error = await #expect(throws: BenchError.self) { try await missing.on() }
        #expect(error?.message == "no USB hub at 3-1 (hubs here: 1-1.3, 1-1.4, 2-1.4, 1; `lsusb -t` shows where each sits)")
        let port9 = HubPowerSwitch(location: "1-1.4", port: 9, paths: sysfs.paths, clock: SteppingClock())
        let portError = await #expect(throws: BenchError.self) { try await port9.on() }
        #expect(portError?.message == "hub 1-1.4 has ports 1 to 4, not 9")
        let bare = HubPowerSwitch(location: "1-1", port: 1, paths: SysfsTree().paths, clock: SteppingClock())
        let bareError = await #expect(throws: BenchError.self) { try await bare.on() }
        #expect(bareError?.message.contains("this host lists no USB hubs at all") == true)
    }

    @Test func theStatusIsReadBack() async throws {
        let sysfs = Self.bench()
        let power = HubPowerSwitch(
            location: "1-1.4", port: 2, paths: sysfs.paths, control: FakeHubs(status: 0x0103), clock: SteppingClock())
        let status = try power.status()
        #expect(status.powered == true && status.connected == true && status.disabled == false)
        #expect(status.deviceEnumerated)
        #expect(status.description == "hub 1-1.4 port 2: power on enabled device 1-1.4.2 present")
    }

    @Test func powerSwitchingModeComesFromWHubCharacteristics() {
        // A USB 2.0 hub's descriptor (VIA VL812's USB 2 half): wHubCharacteristics 0x00E9, per-port.
        #expect(PowerSwitching(hubDescriptor: [0x09, 0x29, 0x04, 0xE9, 0x00, 0x32, 0x64, 0x00, 0xFF]) == .perPort)
        #expect(PowerSwitching(characteristics: 0x0000) == .ganged)
        #expect(PowerSwitching(characteristics: 0x0002) == .none)
        #expect(PowerSwitching(characteristics: 0x0003) == .none)
        #expect(PowerSwitching(hubDescriptor: [0x09, 0x29, 0x04]) == nil)
    }
}
