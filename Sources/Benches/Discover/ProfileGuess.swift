import BenchCore
import BoardControl
import DeviceProfiles

/// What a USB serial port's VID:PID says about the board behind it: the device profile to test it as and how its
/// serial wiring resets it. A guess, written into the rig skeleton for a person to confirm.
public struct ProfileGuess: Sendable, Hashable {
    public var profile: Profile
    public var reset: ResetPreset
    /// Why: `Espressif USB-Serial/JTAG (303a:1001)`.
    public var reason: String

    /// The guess for `port`; nil when its ids say nothing (not USB, or a bridge blerig does not know).
    public static func guess(_ port: SerialPortInfo) -> ProfileGuess? {
        guard let vendor = port.vendorID, let product = port.productID else { return nil }
        let ids = "\(SerialPortName.hex(vendor)):\(SerialPortName.hex(product))"
        switch (vendor, product) {
        case (0x303A, 0x1001):
            return ProfileGuess(profile: .espPoint, reset: .esp32USBJTAG, reason: "Espressif USB-Serial/JTAG (\(ids))")
        case (0x303A, _):
            return ProfileGuess(profile: .espPoint, reset: .esp32Classic, reason: "Espressif USB (\(ids))")
        case (0x10C4, 0xEA60):
            return ProfileGuess(profile: .espPoint, reset: .esp32Classic, reason: "CP210x bridge on an ESP32 DevKit (\(ids))")
        case (0x1A86, 0x7523), (0x1A86, 0x55D3), (0x1A86, 0x55D4):
            return ProfileGuess(profile: .espPoint, reset: .esp32Classic, reason: "CH34x bridge on an ESP32 DevKit (\(ids))")
        case (0x2341, _):
            return ProfileGuess(
                profile: .nano33BLESense, reset: .arduino1200Touch, reason: "Arduino (\(ids)), a Nano 33 BLE")
        default:
            return nil
        }
    }
}

/// Where a USB device hangs: the hub location and port uhubctl (and a rig's `power:`) names. `1-1.4` is port 4 of
/// hub `1-1`; `1-3` is port 3 of bus 1's root hub, `1`.
public struct HubPlace: Sendable, Hashable, CustomStringConvertible {
    public var hub: String
    public var port: Int

    public init?(usbDevice location: String) {
        let parts = location.split(separator: "-", maxSplits: 1)
        guard parts.count == 2 else { return nil }
        let chain = parts[1].split(separator: ".")
        guard let last = chain.last, let port = Int(last) else { return nil }
        hub = chain.count == 1 ? String(parts[0]) : "\(parts[0])-" + chain.dropLast().joined(separator: ".")
        self.port = port
    }

    public var description: String { "hub \(hub) port \(port)" }
}
