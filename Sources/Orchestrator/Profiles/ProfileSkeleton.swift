import BLECore
import CentralStack
import DeviceProfiles
import Foundation

/// `blerig probe --profile-skeleton FILE`: a starting profile file (docs/profiles.md) written from a probed board,
/// its advertising and its whole table, with what a probe cannot know (the rate, the commands) marked TODO. It
/// loads as it is; the user then tightens it.
public enum ProfileSkeleton {
    /// The services every stack serves whatever the firmware does; the skeleton leaves them out.
    static let stackServices: Set<BluetoothUUID> = [BluetoothUUID(0x1800), GATT.GenericAttribute.service]

    /// The profile file text for the board `report` walked.
    public static func yaml(from report: Probe.Report) -> String {
        let data = report.advertisement.data
        var lines = [
            "# A starting profile written by `blerig probe --profile-skeleton` from \(report.address)"
                + (report.name.map { " (\($0))" } ?? "") + ".",
            "# Check every line against the firmware; the format is docs/profiles.md.",
            "profile: \(profileName(report.name))",
            "",
            "advertising:",
        ]
        if let name = report.name { lines.append("  name: \(quoted(name))") }
        let advertised = data.serviceUUIDs
        if !advertised.isEmpty { lines.append("  services: [\(advertised.map(\.description).joined(separator: ", "))]") }
        if let company = data.structures.lazy.compactMap(manufacturer).first {
            lines.append("  manufacturer: {company: 0x\(hex(UInt64(company.0), digits: 4)), data: \"\(company.1.hexString)\"}")
        }
        if let flags = data.flags { lines.append("  flags: 0x\(hex(UInt64(flags.rawValue), digits: 2))") }
        if report.name == nil, advertised.isEmpty { lines.append("  services: []") }
        lines += ["", "services:"]
        let services = report.table.services.filter { !stackServices.contains($0.uuid) && $0.discoveryError == nil }
        for service in services {
            lines.append("  - uuid: \(service.uuid)")
            lines.append("    characteristics:")
            if service.characteristics.isEmpty { lines[lines.count - 1] += " []" }
            for characteristic in service.characteristics { lines += self.characteristic(characteristic) }
        }
        let subscribable = services.flatMap(\.characteristics).filter {
            !$0.properties.isDisjoint(with: [.notify, .indicate])
        }
        lines += ["", "# Subscribed before the board counts as ready.", "ready: [\(subscribable.map(\.uuid.description).joined(separator: ", "))]"]
        if let periodic = subscribable.first {
            lines += [
                "", "# TODO: the rate the firmware notifies at, and how to read the value.",
                "notification:",
                "  characteristic: \(periodic.uuid)",
                "  rate_hz: 1",
                "  decoder: \(decoder(for: periodic))",
            ]
        }
        lines += [
            "", "# TODO: the writes the commands suite sends, each with what it must cause, e.g.",
            "# commands:", "#   check: light on/off",
            "#   writes:", "#     - {name: on, characteristic: <uuid>, bytes: \"01\", expect: {error: 0x13}}",
            "", "# The board contract's BOOT and READY lines are the default; give your own banner as regular expressions.",
            "# console: {boot: '^MySensor v\\S+', boot_line: 'MySensor v{fw}', errors: ['ERROR']}",
            "", "virtual:", "  mtu: \(max(23, min(517, Int(report.mtu))))",
        ]
        return lines.joined(separator: "\n") + "\n"
    }

    private static func characteristic(_ characteristic: GATTTable.Characteristic) -> [String] {
        let properties = ProfileFile.propertyNames.filter { characteristic.properties.contains($0.1) }.map(\.0)
        var lines = [
            "      - uuid: \(characteristic.uuid)", "        properties: [\(properties.joined(separator: ", "))]",
        ]
        if let codec = DataProfile.StandardCodec.allCases.first(where: { $0.uuid == characteristic.uuid }) {
            lines.append("        codec: \(codec.rawValue)")
        } else if case .value(let bytes) = characteristic.value, !bytes.isEmpty {
            lines.append("        " + valueEntry(bytes))
        }
        let descriptors = characteristic.descriptors.filter {
            $0.uuid != GATT.AttributeType.clientCharacteristicConfiguration
        }
        if !descriptors.isEmpty {
            let entries = descriptors.map { descriptor in
                if case .value(let bytes) = descriptor.value, !bytes.isEmpty {
                    "{uuid: \(descriptor.uuid), \(valueEntry(bytes))}"
                } else {
                    "\(descriptor.uuid)"
                }
            }
            lines.append("        descriptors: [\(entries.joined(separator: ", "))]")
        }
        return lines
    }

    /// `value: "Alert light"` for bytes that read as text (valid UTF-8, two characters or more, a letter among them,
    /// no control character and no line or paragraph separator, which YAML would fold), else `bytes: "416c"`. Either
    /// gives the same bytes back when the profile loads.
    static func valueEntry(_ bytes: [UInt8]) -> String {
        let unprintable: Set<Unicode.GeneralCategory> = [.control, .lineSeparator, .paragraphSeparator]
        if let text = String(validating: bytes, as: UTF8.self), text.count >= 2,
            text.unicodeScalars.contains(where: \.properties.isAlphabetic),
            !text.unicodeScalars.contains(where: { unprintable.contains($0.properties.generalCategory) })
        {
            return "value: \(quoted(text))"
        }
        return "bytes: \"\(bytes.hexString)\""
    }

    /// A codec for a standard characteristic, else a number as wide as the value read (a byte when unread).
    private static func decoder(for characteristic: GATTTable.Characteristic) -> String {
        if let codec = DataProfile.StandardCodec.allCases.first(where: { $0.uuid == characteristic.uuid }) {
            return "{codec: \(codec.rawValue)}"
        }
        var width = 1
        if case .value(let bytes) = characteristic.value, [1, 2, 4, 8].contains(bytes.count) { width = bytes.count }
        return "{format: u\(width * 8), scale: 1, unit: \"\"}   # TODO: signedness, scale and unit"
    }

    /// A valid profile name from the advertised name: `iOSArduinoBoard` → `iosarduinoboard`.
    static func profileName(_ advertised: String?) -> String {
        let cleaned = String(
            (advertised ?? "").lowercased().unicodeScalars.map {
                $0.isASCII && ($0.properties.isAlphabetic || $0.properties.numericType != nil) ? Character($0) : "-"
            }.prefix(64))
        let name = cleaned.drop(while: { $0 == "-" })
        let candidate = name.isEmpty ? "my-board" : String(name)
        return Profile(rawValue: candidate) == nil ? candidate : candidate + "-described"
    }

    private static func manufacturer(_ structure: ADStructure) -> (UInt16, [UInt8])? {
        guard case let .manufacturerData(company, bytes) = structure else { return nil }
        return (company.rawValue, bytes)
    }

    private static func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    private static func hex(_ value: UInt64, digits: Int) -> String {
        let text = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}
