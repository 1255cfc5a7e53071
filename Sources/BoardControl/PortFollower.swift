import BLECore
import BenchCore

/// Follows a board's serial port across re-enumeration: after a reset or a power cycle the port goes away and
/// comes back, perhaps under another name. A port counts once it has stayed for ``settle`` (arduino-cli's rule:
/// a port that appears and vanishes again within a second is a bootloader passing through).
public struct PortFollower: Sendable {
    public let inventory: SerialPortInventory
    public let clock: any RigClock

    /// How often sysfs is looked at (arduino-cli polls every 250 ms).
    public static let pollInterval: Duration = .milliseconds(250)
    /// How long a port must stay to count.
    public static let settle: Duration = .seconds(1)

    public init(inventory: SerialPortInventory, clock: any RigClock) {
        self.inventory = inventory
        self.clock = clock
    }

    /// The name to follow a port by once it was opened as `name`: a plain `/dev/ttyACM0` becomes its USB interface
    /// (`usb:1-1.4:1.0`), which survives the port coming back as ttyACM1; every other name already survives.
    public static func stableName(_ name: SerialPortName, opened info: SerialPortInfo?) -> SerialPortName {
        guard case .path(let path) = name, !path.contains("/serial/by-"), let interface = info?.usbInterface else {
            return name
        }
        return .usbPath(interface)
    }

    /// Waits until `name` stands for a port that has stayed for ``settle``; throws `.missing` after `timeout`.
    public func waitForPort(_ name: SerialPortName, timeout: Duration) async throws(BenchError) -> SerialPortInfo {
        let deadline = clock.now.advanced(by: timeout)
        var candidate: (port: SerialPortInfo, since: RigInstant)?
        while true {
            let now = clock.now
            if let port = try inventory.find(name), FileText.exists(port.devicePath) {
                if let seen = candidate, seen.port == port {
                    if seen.since.duration(to: now) >= Self.settle { return port }
                } else {
                    candidate = (port, now)
                }
            } else {
                candidate = nil
            }
            guard now < deadline else {
                throw BenchError(
                    .missing,
                    "serial port \(name) did not come back (and stay \(Self.settle.seconds) s) within "
                        + "\(timeout.seconds) s: is the board powered, and its USB cable in?")
            }
            try await pause()
        }
    }

    /// Waits for a new port that stays for ``settle``; nil after `timeout`. The 1200-baud touch's bootloader comes up
    /// this way. New is arduino-cli's rule: not among the ports of the look before (`known`, device paths, at
    /// first), so a port that went away and came back under the same name counts, as when the bootloader takes the
    /// sketch's freed ttyACM0 (what Debian's kernel does with a USB/IP board in the kernel tier).
    public func waitForNewPort(notIn known: Set<String>, timeout: Duration) async throws(BenchError) -> SerialPortInfo? {
        let deadline = clock.now.advanced(by: timeout)
        var known = known
        var candidate: (port: SerialPortInfo, since: RigInstant)?
        while clock.now < deadline {
            let now = clock.now
            let ports = inventory.ports()
            if let seen = candidate, ports.contains(seen.port) {
                if seen.since.duration(to: now) >= Self.settle { return seen.port }
            } else {
                candidate = ports.first { !known.contains($0.devicePath) }.map { ($0, now) }
            }
            known = Set(ports.map(\.devicePath))
            try await pause()
        }
        return nil
    }

    private func pause() async throws(BenchError) {
        do { try await clock.sleep(for: Self.pollInterval) } catch {
            throw BenchError(.cancelled, "waiting for a serial port was cancelled")
        }
    }
}
