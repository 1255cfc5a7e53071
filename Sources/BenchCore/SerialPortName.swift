/// How a rig names a board's serial port: a device path, or something that survives the port's re-enumeration
/// after a reset or a power cycle (labgrid names ports by udev's `ID_PATH` and `ID_SERIAL_SHORT` for the same
/// reason: `/dev/ttyACM0` may come back as `/dev/ttyACM1`).
///
/// | written | meaning |
/// |---|---|
/// | `/dev/serial/by-id/usb-Espressif_..-if00` | a device path; by-id and by-path links follow the board by themselves |
/// | `/dev/ttyACM0` | a device path, followed across re-enumeration by the USB device it belonged to when opened |
/// | `usb:1-1.4:1.0` | the USB interface at that place in the bus (`usb:1-1.4` for the device's first serial port) |
/// | `serial:5A4B3C2D` | the USB device with that serial number (`iSerial`) |
/// | `id:303a:1001` | the one USB device with that vendor and product id (hex) |
public enum SerialPortName: Sendable, Hashable, CustomStringConvertible {
    case path(String)
    /// A USB device (`1-1.4`) or interface (`1-1.4:1.0`) location, as sysfs names them.
    case usbPath(String)
    case serialNumber(String)
    case usbID(vendor: UInt16, product: UInt16)

    public var description: String {
        switch self {
        case .path(let path): path
        case .usbPath(let path): "usb:\(path)"
        case .serialNumber(let serial): "serial:\(serial)"
        case .usbID(let vendor, let product): "id:\(Self.hex(vendor)):\(Self.hex(product))"
        }
    }

    /// `303a`: four lower-case hex digits.
    public static func hex(_ value: UInt16) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 4 - digits.count) + digits
    }

    /// Reads one of the forms above; the error message says which forms there are.
    public init(parsing text: String) throws(SerialPortNameError) {
        if text.hasPrefix("/") {
            guard text.count > 1, !text.hasSuffix("/") else {
                throw SerialPortNameError("'\(text)' is a directory, not a serial port such as /dev/ttyACM0")
            }
            self = .path(text)
            return
        }
        guard let colon = text.firstIndex(of: ":") else {
            throw SerialPortNameError(
                "'\(text)' is no serial port: write a device path (/dev/serial/by-id/...), usb:1-1.4:1.0, "
                    + "serial:SERIALNUMBER or id:VID:PID")
        }
        let kind = text[..<colon]
        let value = String(text[text.index(after: colon)...])
        switch kind {
        case "usb":
            guard Self.isUSBPath(value) else {
                throw SerialPortNameError(
                    "'\(value)' is not a USB location such as 1-1.4 (a device) or 1-1.4:1.0 (an interface)")
            }
            self = .usbPath(value)
        case "serial":
            guard !value.isEmpty, value.allSatisfy({ $0.isASCII && !$0.isWhitespace }) else {
                throw SerialPortNameError("serial: needs the USB serial number, such as serial:5A4B3C2D")
            }
            self = .serialNumber(value)
        case "id":
            let parts = value.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 2, parts.allSatisfy({ $0.count == 4 }), let vendor = UInt16(parts[0], radix: 16),
                let product = UInt16(parts[1], radix: 16)
            else {
                throw SerialPortNameError(
                    "id: needs the vendor and product id as four hex digits each, such as id:303a:1001, "
                        + "found '\(value)'")
            }
            self = .usbID(vendor: vendor, product: product)
        default:
            throw SerialPortNameError(
                "unknown kind of port name '\(kind):' (expected a device path, usb:, serial: or id:)")
        }
    }

    /// `1-1.4` or `1-1.4:1.0`: bus-port(.port)*, then optionally `:configuration.interface`.
    public static func isUSBPath(_ text: String) -> Bool {
        let halves = text.split(separator: ":", omittingEmptySubsequences: false)
        guard (1...2).contains(halves.count) else { return false }
        let device = halves[0].split(separator: "-", omittingEmptySubsequences: false)
        guard device.count == 2, isNumber(device[0]),
            device[1].split(separator: ".", omittingEmptySubsequences: false).allSatisfy(isNumber)
        else { return false }
        guard halves.count == 2 else { return true }
        let interface = halves[1].split(separator: ".", omittingEmptySubsequences: false)
        return interface.count == 2 && interface.allSatisfy(isNumber)
    }

    private static func isNumber(_ text: Substring) -> Bool {
        !text.isEmpty && text.count <= 3 && text.allSatisfy { $0.isASCII && $0.isNumber }
    }
}

/// Why a serial port name does not parse.
public struct SerialPortNameError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
