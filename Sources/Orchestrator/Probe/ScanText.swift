import BLECore
import CentralStack

/// `blerig scan`'s text output: one row per advertiser, strongest first, then a summary line.
///
/// ```
/// ADDRESS            TYPE    RSSI  MAX  REPORTS  CONN  NAME             SERVICES          MANUFACTURER DATA
/// 24:0A:C4:12:1A:2B  public   -55  -55       47  yes   ESP-Point-1a2b   esp-point Sensor  0xFFFF: 01 04 02 00 00
/// ```
/// RSSI is the last report's, MAX the strongest; SERVICES are names where blerig knows them, else UUIDs.
public enum ScanText {
    public static func lines(_ result: AdvertiserScan.Result) -> [String] {
        let header = ["ADDRESS", "TYPE", "RSSI", "MAX", "REPORTS", "CONN", "NAME", "SERVICES", "MANUFACTURER DATA"]
        let rightAligned: Set<Int> = [2, 3, 4]
        let rows = result.devices.map { device in
            [
                AttributeText.address(device.address), AttributeText.addressType(device.address), "\(device.lastRSSI)",
                "\(device.maxRSSI)", "\(device.reports)", device.connectable ? "yes" : "no", device.name ?? "-",
                device.serviceUUIDs.isEmpty
                    ? "-" : device.serviceUUIDs.map { UUIDNames.name(of: $0) ?? "\($0)" }.joined(separator: ", "),
                device.manufacturerData.isEmpty
                    ? "-"
                    : device.manufacturerData.map { "\($0.company): \(AttributeText.hex($0.data))" }
                        .joined(separator: "; "),
            ]
        }
        var lines: [String] = []
        if !rows.isEmpty {
            let widths = header.indices.map { column in
                ([header] + rows).map { $0[column].count }.max() ?? 0
            }
            for row in [header] + rows {
                let cells = row.indices.map { column -> String in
                    let cell = row[column]
                    if column == row.count - 1 { return cell }
                    let padding = String(repeating: " ", count: widths[column] - cell.count)
                    return rightAligned.contains(column) && row != header ? padding + cell : cell + padding
                }
                lines.append(cells.joined(separator: "  "))
            }
        }
        lines.append(summary(result))
        return lines
    }

    static func summary(_ result: AdvertiserScan.Result) -> String {
        let reports = result.devices.reduce(0) { $0 + $1.reports }
        let seen =
            result.devices.isEmpty
            ? "no advertisers"
            : "\(ProbeText.count(result.devices.count, "advertiser")), \(ProbeText.count(reports, "report"))"
        return "\(seen) in \(AttributeText.seconds(result.duration)) s"
            + (result.interrupted ? " (stopped early)" : "")
    }
}
