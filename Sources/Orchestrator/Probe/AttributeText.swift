import BLECore
import CentralStack
import Foundation

/// How the probe and scan outputs write bytes, addresses, UUIDs and properties.
enum AttributeText {
    /// `45 73 70`: upper-case hex, a space between bytes.
    static func hex(_ bytes: some Collection<UInt8>) -> String {
        bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16, uppercase: true) }.joined(separator: " ")
    }

    /// The bytes as text when they are UTF-8 made of printable characters (tab, LF and CR allowed, other controls
    /// not); nil for binary values, and for values of fewer than two bytes (a battery level of 64 is not "@").
    static func printable(_ bytes: [UInt8]) -> String? {
        guard bytes.count >= 2, let text = String(validating: bytes, as: UTF8.self) else { return nil }
        let allowed: Set<Unicode.Scalar> = ["\t", "\n", "\r"]
        let printable = text.unicodeScalars.allSatisfy { scalar in
            if allowed.contains(scalar) { return true }
            switch scalar.properties.generalCategory {
            case .control, .format, .surrogate, .privateUse, .unassigned, .lineSeparator, .paragraphSeparator:
                return false
            default: return true
            }
        }
        return printable ? text : nil
    }

    /// `24:0A:C4:12:1A:2B`, without the type (which the outputs show on its own).
    static func address(_ address: DeviceAddress) -> String {
        address.bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16, uppercase: true) }.joined(separator: ":")
    }

    static func addressType(_ address: DeviceAddress) -> String { address.kind == .public ? "public" : "random" }

    /// `180A Device Information`, or the UUID alone when blerig does not know its name.
    static func uuid(_ uuid: BluetoothUUID) -> String {
        UUIDNames.name(of: uuid).map { "\(uuid) \($0)" } ?? "\(uuid)"
    }

    /// The properties' names, in bit order.
    static func properties(_ properties: GATT.CharacteristicProperties) -> [String] {
        let names: [(GATT.CharacteristicProperties, String)] = [
            (.broadcast, "broadcast"), (.read, "read"), (.writeWithoutResponse, "write-without-response"),
            (.write, "write"), (.notify, "notify"), (.indicate, "indicate"),
            (.authenticatedSignedWrites, "authenticated-signed-writes"), (.extendedProperties, "extended-properties"),
        ]
        return names.filter { properties.contains($0.0) }.map(\.1)
    }

    /// `0x0003`.
    static func handle(_ handle: UInt16) -> String {
        let digits = String(handle, radix: 16, uppercase: true)
        return "0x" + String(repeating: "0", count: 4 - digits.count) + digits
    }

    /// `0xFFFF`, with the company's name when blerig knows it.
    static func company(_ company: CompanyIdentifier) -> String {
        UUIDNames.name(of: company).map { "\(company) (\($0))" } ?? "\(company)"
    }

    /// Seconds as a JSON number, rounded to the microsecond (no binary noise such as 0.35000000000000003).
    static func secondsValue(_ duration: Duration) -> Double { (duration.seconds * 1e6).rounded() / 1e6 }

    /// Seconds with three decimals.
    static func seconds(_ duration: Duration) -> String { String(format: "%.3f", duration.seconds) }
}
