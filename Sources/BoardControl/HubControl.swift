import CBoardControl
import Glibc

/// The hub class requests uhubctl sends (USB 2.0 §11.24), on the hub's usbfs node. ``UsbfsHubControl`` is the
/// real one; the requests are small enough that a test double answers them.
public protocol HubControl: Sendable {
    /// GET_DESCRIPTOR of the hub descriptor (type 0x29, 0x2A on a SuperSpeed hub).
    func hubDescriptor(of hub: USBHub) throws(SystemCallError) -> [UInt8]
    /// GET_STATUS of a port: wPortStatus in the low 16 bits, wPortChange in the high.
    func portStatus(of hub: USBHub, port: Int) throws(SystemCallError) -> UInt32
    /// SET_FEATURE or CLEAR_FEATURE(PORT_POWER) on a port.
    func setPortPower(of hub: USBHub, port: Int, on: Bool) throws(SystemCallError)
}

/// Hub class constants (USB 2.0 §11.24.2, §11.23.2.1; USB 3.2 §10.16.2).
public enum HubRequest {
    /// bmRequestType: class, to "other" (a port), host to device.
    public static let toPort: UInt8 = 0x23
    /// bmRequestType: class, from "other", device to host.
    public static let fromPort: UInt8 = 0xA3
    /// bmRequestType: class, from the device, device to host.
    public static let fromDevice: UInt8 = 0xA0
    public static let getStatus: UInt8 = 0
    public static let clearFeature: UInt8 = 1
    public static let setFeature: UInt8 = 3
    public static let getDescriptor: UInt8 = 6
    public static let portPower: UInt16 = 8
    public static let hubDescriptorType: UInt8 = 0x29
    public static let superSpeedHubDescriptorType: UInt8 = 0x2A
    /// wPortStatus bits.
    public static let connection: UInt32 = 0x0001
    public static let powerUSB2: UInt32 = 0x0100
    public static let powerUSB3: UInt32 = 0x0200
}

/// How a hub switches its ports' power, from wHubCharacteristics bits 1:0 (Logical Power Switching Mode).
public enum PowerSwitching: Sendable, Hashable, CustomStringConvertible {
    /// 00: all ports at once.
    case ganged
    /// 01: each port on its own: the only mode that powers one board off.
    case perPort
    /// 1x: ports are always powered (USB 1.0 hubs).
    case none

    public init(characteristics: UInt16) {
        switch characteristics & 0x3 {
        case 0: self = .ganged
        case 1: self = .perPort
        default: self = .none
        }
    }

    /// Reads wHubCharacteristics from a hub descriptor (bytes 3 and 4); nil when the descriptor is too short.
    public init?(hubDescriptor bytes: [UInt8]) {
        guard bytes.count >= 5 else { return nil }
        self.init(characteristics: UInt16(bytes[3]) | UInt16(bytes[4]) << 8)
    }

    public var description: String {
        switch self {
        case .ganged: "ganged power switching (all ports at once)"
        case .perPort: "per-port power switching"
        case .none: "no power switching"
        }
    }
}

/// Hub requests through usbfs (`/dev/bus/usb/BBB/DDD`): what libusb does on Linux, without the library.
public struct UsbfsHubControl: HubControl {
    public let paths: SystemPaths
    static let timeoutMs: UInt32 = 1000

    public init(paths: SystemPaths = SystemPaths()) { self.paths = paths }

    public func node(of hub: USBHub) -> String {
        func three(_ value: Int) -> String { String(repeating: "0", count: max(0, 3 - String(value).count)) + "\(value)" }
        return "\(paths.dev)/bus/usb/\(three(hub.bus))/\(three(hub.device))"
    }

    private func transfer(
        _ hub: USBHub, _ type: UInt8, _ request: UInt8, value: UInt16, index: UInt16, length: Int
    ) throws(SystemCallError) -> [UInt8] {
        let path = node(of: hub)
        let descriptor = open(path, O_RDWR | O_CLOEXEC)
        guard descriptor >= 0 else { throw .current("open \(path)") }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: max(length, 1))
        let count = buffer.withUnsafeMutableBytes { raw in
            blerig_usb_control(
                descriptor, type, request, value, index, length == 0 ? nil : raw.baseAddress, UInt16(length),
                Self.timeoutMs)
        }
        guard count >= 0 else { throw .current("USBDEVFS_CONTROL on \(path)") }
        return Array(buffer.prefix(Int(count)))
    }

    public func hubDescriptor(of hub: USBHub) throws(SystemCallError) -> [UInt8] {
        let type = hub.isSuperSpeed ? HubRequest.superSpeedHubDescriptorType : HubRequest.hubDescriptorType
        return try transfer(
            hub, HubRequest.fromDevice, HubRequest.getDescriptor, value: UInt16(type) << 8, index: 0, length: 71)
    }

    public func portStatus(of hub: USBHub, port: Int) throws(SystemCallError) -> UInt32 {
        let bytes = try transfer(
            hub, HubRequest.fromPort, HubRequest.getStatus, value: 0, index: UInt16(port), length: 4)
        guard bytes.count == 4 else { throw SystemCallError("GET_STATUS (short answer)", code: EPROTO) }
        return UInt32(bytes[0]) | UInt32(bytes[1]) << 8 | UInt32(bytes[2]) << 16 | UInt32(bytes[3]) << 24
    }

    public func setPortPower(of hub: USBHub, port: Int, on: Bool) throws(SystemCallError) {
        _ = try transfer(
            hub, HubRequest.toPort, on ? HubRequest.setFeature : HubRequest.clearFeature, value: HubRequest.portPower,
            index: UInt16(port), length: 0)
    }
}
