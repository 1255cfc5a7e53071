import BLECore
import CentralStack

/// `blerig probe`'s text output: the device, then its GATT table as an indented tree.
///
/// ```
/// ESP-Point-1a2b  24:0A:C4:12:1A:2B (public)  RSSI -55 dBm  ATT_MTU 247
/// service 180A Device Information  handles 0x0001…0x0009
///   characteristic 2A29 Manufacturer Name String  handle 0x0003 (declaration 0x0002)  read
///     value (17 bytes): 45 73 70 72 65 73 73 69 66 20 53 79 73 74 65 6D 73  "Espressif Systems"
///   characteristic 2A19 Battery Level  handle 0x000C (declaration 0x000B)  read, notify
///     value (1 byte): 57
///     descriptor 2902 Client Characteristic Configuration  handle 0x000D
///       value (2 bytes): 00 00
/// ```
/// A value of more than 32 bytes is written 16 bytes a line, its text (when it is text) on the line after.
public enum ProbeText {
    /// The longest value written on one line.
    static let oneLineBytes = 32
    /// Bytes per line of a longer value.
    static let bytesPerLine = 16

    public static func lines(_ report: Probe.Report) -> [String] {
        var lines = [header(report)]
        for service in report.table.services {
            let (first, last) = (service.handles.lowerBound, service.handles.upperBound)
            lines.append(
                "service \(AttributeText.uuid(service.uuid))  handles "
                    + "\(AttributeText.handle(first))…\(AttributeText.handle(last))")
            if let error = service.discoveryError { lines.append("  characteristic discovery refused: \(error)") }
            for characteristic in service.characteristics {
                let properties = AttributeText.properties(characteristic.properties)
                lines.append(
                    "  characteristic \(AttributeText.uuid(characteristic.uuid))  handle "
                        + "\(AttributeText.handle(characteristic.valueHandle)) "
                        + "(declaration \(AttributeText.handle(characteristic.declarationHandle)))  "
                        + (properties.isEmpty ? "no properties" : properties.joined(separator: ", ")))
                if let value = characteristic.value {
                    lines += self.value(value, indent: "    ")
                } else {
                    lines.append("    value not read: no Read property")
                }
                if let error = characteristic.discoveryError {
                    lines.append("    descriptor discovery refused: \(error)")
                }
                for descriptor in characteristic.descriptors {
                    lines.append(
                        "    descriptor \(AttributeText.uuid(descriptor.uuid))  handle "
                            + AttributeText.handle(descriptor.handle))
                    lines += value(descriptor.value, indent: "      ")
                }
            }
        }
        lines.append(summary(report))
        return lines
    }

    static func header(_ report: Probe.Report) -> String {
        let address = report.address
        return
            "\(report.name ?? "(no name)")  \(AttributeText.address(address)) (\(AttributeText.addressType(address)))  "
            + "RSSI \(report.advertisement.rssi) dBm  ATT_MTU \(report.mtu)"
    }

    static func summary(_ report: Probe.Report) -> String {
        let table = report.table
        let characteristics = table.services.reduce(0) { $0 + $1.characteristics.count }
        let descriptors = table.services.flatMap(\.characteristics).reduce(0) { $0 + $1.descriptors.count }
        let reads = table.reads
        let refused = reads.filter { if case .error = $0.result { true } else { false } }.count
        var text =
            "\(count(table.services.count, "service")), \(count(characteristics, "characteristic")), "
            + "\(count(descriptors, "descriptor")); \(count(reads.count, "value")) read"
            + (refused > 0 ? " (\(refused) refused)" : "")
        if let stopped = table.stopped { text += "; the walk stopped early while \(stopped)" }
        return text + "; disconnected: \(report.disconnect)"
    }

    /// One read's result, indented.
    static func value(_ result: GATTTable.ReadResult, indent: String) -> [String] {
        switch result {
        case let .error(code): return ["\(indent)error: \(code)"]
        case let .value(bytes):
            let size = "value (\(count(bytes.count, "byte")))"
            let text = AttributeText.printable(bytes).map { "\"\($0.debugDescriptionContent)\"" }
            if bytes.isEmpty { return ["\(indent)\(size)"] }
            if bytes.count <= oneLineBytes {
                return ["\(indent)\(size): \(AttributeText.hex(bytes))" + (text.map { "  \($0)" } ?? "")]
            }
            var lines = ["\(indent)\(size):"]
            for start in stride(from: 0, to: bytes.count, by: bytesPerLine) {
                lines.append("\(indent)  " + AttributeText.hex(bytes[start..<min(start + bytesPerLine, bytes.count)]))
            }
            if let text { lines.append("\(indent)  \(text)") }
            return lines
        }
    }

    static func count(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }
}

extension String {
    /// The string with quotes, backslashes and line breaks escaped, as inside a Swift string literal.
    var debugDescriptionContent: String { String(debugDescription.dropFirst().dropLast()) }
}
