import BLECore
import BenchCore
import Testing

@testable import BoardControl

/// After the 1200-baud touch the board's bootloader often takes the name the sketch's port had (the kernel frees
/// ttyACM0 and gives it out again): a port that left and came back is new, as arduino-cli counts it.
@Suite("Following the touch to a bootloader under the old name")
struct TouchFollowingTests {
    static let sketch = (vendor: "2341", product: "805a")

    @Test func theBootloaderTakingTheFreedNameIsTheNewPort() async throws {
        let sysfs = SysfsTree()
        let device = sysfs.usbDevice("1-1.3", vendor: Self.sketch.vendor, product: Self.sketch.product)
        sysfs.acm("ttyACM0", at: "1-1.3", device: device)
        let clock = SteppingClock()
        let follower = PortFollower(inventory: SerialPortInventory(paths: sysfs.paths), clock: clock)
        let known = Set(follower.inventory.ports().map(\.devicePath))
        // The sketch's port is still there at the first look, gone at the second, back as the bootloader after.
        clock.at(.milliseconds(400)) { sysfs.removeTTY("ttyACM0") }
        clock.at(.milliseconds(900)) {
            let boot = sysfs.usbDevice("1-1.3", vendor: Self.sketch.vendor, product: "005a")
            sysfs.acm("ttyACM0", at: "1-1.3", device: boot)
        }
        let port = try await follower.waitForNewPort(notIn: known, timeout: .seconds(10))
        #expect(port?.name == "ttyACM0" && port?.productID == 0x005A)
        // Seen at the 1000 ms look, counted after it stayed a second.
        #expect(clock.now.sinceOrigin == .milliseconds(2000))
    }

    @Test func aPortThatNeverLeftIsNotNew() async throws {
        let sysfs = SysfsTree()
        let device = sysfs.usbDevice("1-1.3", vendor: Self.sketch.vendor, product: Self.sketch.product)
        sysfs.acm("ttyACM0", at: "1-1.3", device: device)
        let clock = SteppingClock()
        let follower = PortFollower(inventory: SerialPortInventory(paths: sysfs.paths), clock: clock)
        let port = try await follower.waitForNewPort(notIn: ["\(sysfs.paths.dev)/ttyACM0"], timeout: .seconds(3))
        #expect(port == nil)
    }

    @Test func aPortThatComesBackForLessThanASecondIsNotTaken() async throws {
        let sysfs = SysfsTree()
        let clock = SteppingClock()
        let follower = PortFollower(inventory: SerialPortInventory(paths: sysfs.paths), clock: clock)
        clock.at(.milliseconds(100)) {
            let boot = sysfs.usbDevice("1-1.3", vendor: Self.sketch.vendor, product: "005a")
            sysfs.acm("ttyACM0", at: "1-1.3", device: boot)
        }
        clock.at(.milliseconds(600)) { sysfs.removeTTY("ttyACM0") }
        let port = try await follower.waitForNewPort(notIn: [], timeout: .seconds(3))
        #expect(port == nil)
    }
}
