import BLECore
import CentralStack
import Foundation

/// `blerig scan --json`: one JSON document, written when the scan ends. Every key is always present, keys are
/// sorted, RSSI in dBm, times in seconds on the radio's clock since it opened:
///
/// ```json
/// {
///   "devices" : [ { "address" : "24:0A:C4:12:1A:2B", "address_type" : "public", "connectable" : true,
///     "first_seen_s" : 0.35, "last_seen_s" : 4.95,
///     "manufacturer_data" : [ { "company" : "0xFFFF", "company_id" : 65535, "hex" : "0104020000" } ],
///     "name" : "ESP-Point-1a2b", "reports" : 47, "rssi_last" : -55, "rssi_max" : -55,
///     "services" : [ { "name" : "esp-point Sensor", "uuid" : "e5b10100-7c3a-4f0e-9d2b-5a1c3e7f9b20" } ] } ],
///   "duration_s" : 5,
///   "interrupted" : false
/// }
/// ```
/// Devices are ordered strongest first (`rssi_max`), then by address.
struct ScanDocument: Encodable {
    let result: AdvertiserScan.Result

    private enum Keys: String, CodingKey {
        case devices, interrupted
        case duration = "duration_s"
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(result.devices.map(Device.init), forKey: .devices)
        try container.encode(AttributeText.secondsValue(result.duration), forKey: .duration)
        try container.encode(result.interrupted, forKey: .interrupted)
    }

    static func json(_ result: AdvertiserScan.Result) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(ScanDocument(result: result)), as: UTF8.self)
    }

    struct Device: Encodable {
        let device: ScanCollector.Device
        init(_ device: ScanCollector.Device) { self.device = device }

        private enum Keys: String, CodingKey {
            case address, connectable, name, reports, services
            case addressType = "address_type"
            case firstSeen = "first_seen_s"
            case lastSeen = "last_seen_s"
            case manufacturerData = "manufacturer_data"
            case rssiLast = "rssi_last"
            case rssiMax = "rssi_max"
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(AttributeText.address(device.address), forKey: .address)
            try container.encode(AttributeText.addressType(device.address), forKey: .addressType)
            try container.encode(device.connectable, forKey: .connectable)
            try container.encode(AttributeText.secondsValue(device.firstSeen.sinceOrigin), forKey: .firstSeen)
            try container.encode(AttributeText.secondsValue(device.lastSeen.sinceOrigin), forKey: .lastSeen)
            try container.encode(device.manufacturerData.map(Manufacturer.init), forKey: .manufacturerData)
            try container.encode(device.name, forKey: .name)
            try container.encode(device.reports, forKey: .reports)
            try container.encode(Int(device.lastRSSI), forKey: .rssiLast)
            try container.encode(Int(device.maxRSSI), forKey: .rssiMax)
            try container.encode(device.serviceUUIDs.map(Service.init), forKey: .services)
        }
    }

    struct Service: Encodable {
        let name: String?
        let uuid: String
        init(_ uuid: BluetoothUUID) {
            name = UUIDNames.name(of: uuid)
            self.uuid = uuid.description
        }

        private enum Keys: String, CodingKey { case name, uuid }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(name, forKey: .name)
            try container.encode(uuid, forKey: .uuid)
        }
    }

    struct Manufacturer: Encodable {
        let data: ScanCollector.ManufacturerData
        init(_ data: ScanCollector.ManufacturerData) { self.data = data }

        private enum Keys: String, CodingKey {
            case company, hex
            case companyID = "company_id"
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(data.company.description, forKey: .company)
            try container.encode(Int(data.company.rawValue), forKey: .companyID)
            try container.encode(data.data.hexString.uppercased(), forKey: .hex)
        }
    }
}
