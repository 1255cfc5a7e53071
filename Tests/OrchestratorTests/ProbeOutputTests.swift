import BLECore
import CentralStack
import Foundation
import Testing

@testable import Orchestrator

/// What `blerig probe` and `blerig scan` print, text and JSON, for tables built by hand.
@Suite("Probe and scan output")
struct ProbeOutputTests {
    static let custom = BluetoothUUID("6e400001-b5a3-f393-e0a9-e50e24dcca9e")!
    static let writeOnly = BluetoothUUID("6e400002-b5a3-f393-e0a9-e50e24dcca9e")!
    static let locked = BluetoothUUID("6e400003-b5a3-f393-e0a9-e50e24dcca9e")!
    static let secret = BluetoothUUID("6e400004-b5a3-f393-e0a9-e50e24dcca9e")!
    static let text40 = Array("forty bytes of printable text, no more!!".utf8)

    static func report(stopped: GATTTable.Stop? = nil) -> Probe.Report {
        let table = GATTTable(
            services: [
                .init(
                    uuid: BluetoothUUID(0x180F), handles: 1...4,
                    characteristics: [
                        .init(
                            uuid: BluetoothUUID(0x2A19), properties: [.read, .notify], declarationHandle: 2,
                            valueHandle: 3, value: .value([64]),
                            descriptors: [
                                .init(
                                    uuid: GATT.AttributeType.clientCharacteristicConfiguration, handle: 4,
                                    value: .value([0, 0]))
                            ])
                    ]),
                .init(
                    uuid: custom, handles: 5...12,
                    characteristics: [
                        .init(uuid: writeOnly, properties: .write, declarationHandle: 6, valueHandle: 7),
                        .init(
                            uuid: locked, properties: .read, declarationHandle: 8, valueHandle: 9,
                            value: .error(.insufficientAuthentication),
                            descriptors: [.init(uuid: secret, handle: 10, value: .error(.readNotPermitted))]),
                        .init(
                            uuid: BluetoothUUID(0x2A29), properties: .read, declarationHandle: 11, valueHandle: 12,
                            value: .value(text40)),
                    ]),
            ], stopped: stopped)
        return Probe.Report(
            advertisement: Advertisement(
                address: DeviceAddress(0xC000_0000_1A2B, kind: .random), data: AdvertisingData(localName: "dev"),
                rssi: -61, connectable: true, received: .origin),
            mtu: 247, table: table, disconnect: .localHostTerminated)
    }

    @Test("the text tree: handles, properties, values in hex and text, refusals in place, what was not read")
    func probeText() {
        #expect(
            ProbeText.lines(Self.report()) == [
                "dev  C0:00:00:00:1A:2B (random)  RSSI -61 dBm  ATT_MTU 247",
                "service 180F Battery  handles 0x0001…0x0004",
                "  characteristic 2A19 Battery Level  handle 0x0003 (declaration 0x0002)  read, notify",
                "    value (1 byte): 40",
                "    descriptor 2902 Client Characteristic Configuration  handle 0x0004",
                "      value (2 bytes): 00 00",
                "service 6e400001-b5a3-f393-e0a9-e50e24dcca9e  handles 0x0005…0x000C",
                "  characteristic 6e400002-b5a3-f393-e0a9-e50e24dcca9e  handle 0x0007 (declaration 0x0006)  write",
                "    value not read: no Read property",
                "  characteristic 6e400003-b5a3-f393-e0a9-e50e24dcca9e  handle 0x0009 (declaration 0x0008)  read",
                "    error: 0x05 (Insufficient Authentication)",
                "    descriptor 6e400004-b5a3-f393-e0a9-e50e24dcca9e  handle 0x000A",
                "      error: 0x02 (Read Not Permitted)",
                "  characteristic 2A29 Manufacturer Name String  handle 0x000C (declaration 0x000B)  read",
                "    value (40 bytes):",
                "      66 6F 72 74 79 20 62 79 74 65 73 20 6F 66 20 70",
                "      72 69 6E 74 61 62 6C 65 20 74 65 78 74 2C 20 6E",
                "      6F 20 6D 6F 72 65 21 21",
                "      \"forty bytes of printable text, no more!!\"",
                "2 services, 4 characteristics, 2 descriptors; 5 values read (2 refused); "
                    + "disconnected: 0x16 (connection terminated by local host)",
            ])
    }

    @Test("a walk cut short says so on the summary line")
    func probeTextStopped() {
        let stop = GATTTable.Stop(during: "reading characteristic 2A29", error: .disconnected(.connectionTimeout))
        #expect(
            ProbeText.lines(Self.report(stopped: stop)).last?.contains(
                "the walk stopped early while reading characteristic 2A29: link lost: 0x08 (connection timeout)")
                == true)
    }

    static func object(_ json: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
    }

    @Test("the probe's JSON document: every key always there, nulls for what does not apply")
    func probeJSON() throws {
        let document = try Self.object(try ProbeDocument.json(Self.report()))
        #expect(Set(document.keys) == ["complete", "device", "disconnect_reason", "mtu", "services", "stopped"])
        #expect(document["complete"] as? Bool == true)
        #expect(document["stopped"] is NSNull)
        #expect(document["mtu"] as? Int == 247)
        let device = try #require(document["device"] as? [String: Any])
        #expect(device["address"] as? String == "C0:00:00:00:1A:2B")
        #expect(device["address_type"] as? String == "random")
        #expect(device["name"] as? String == "dev")
        #expect(device["rssi"] as? Int == -61)
        let services = try #require(document["services"] as? [[String: Any]])
        #expect(services.map { $0["uuid"] as? String } == ["180F", Self.custom.description])
        #expect(services.map { $0["name"] is NSNull } == [false, true])
        #expect(
            Set(services[0].keys) == [
                "characteristics", "discovery_error", "end_handle", "name", "start_handle", "uuid",
            ])
        let characteristics = try #require(services[1]["characteristics"] as? [[String: Any]])
        for characteristic in characteristics {
            #expect(
                Set(characteristic.keys) == [
                    "declaration_handle", "descriptors", "discovery_error", "name", "properties", "uuid", "value",
                    "value_handle",
                ])
        }
        #expect(characteristics[0]["value"] is NSNull)
        #expect(characteristics[0]["properties"] as? [String] == ["write"])
        #expect(characteristics[0]["value_handle"] as? Int == 7)
        let refused = try #require(characteristics[1]["value"] as? [String: Any])
        #expect(refused["hex"] is NSNull && refused["length"] is NSNull && refused["text"] is NSNull)
        let error = try #require(refused["error"] as? [String: Any])
        #expect(error["code"] as? Int == 5)
        #expect(error["name"] as? String == "Insufficient Authentication")
        let descriptor = try #require((characteristics[1]["descriptors"] as? [[String: Any]])?.first)
        #expect(Set(descriptor.keys) == ["handle", "name", "uuid", "value"])
        #expect(((descriptor["value"] as? [String: Any])?["error"] as? [String: Any])?["code"] as? Int == 2)
        let text = try #require(characteristics[2]["value"] as? [String: Any])
        #expect(text["hex"] as? String == Self.text40.hexString.uppercased())
        #expect(text["length"] as? Int == 40)
        #expect(text["text"] as? String == "forty bytes of printable text, no more!!")
        #expect(text["error"] is NSNull)
        let battery = try #require(
            (services[0]["characteristics"] as? [[String: Any]])?.first?["value"] as? [String: Any])
        #expect(battery["text"] is NSNull)
    }

    @Test("an incomplete walk is complete: false with the reason in stopped")
    func probeJSONStopped() throws {
        let stop = GATTTable.Stop(during: "exchanging MTU", error: nil)
        let document = try Self.object(try ProbeDocument.json(Self.report(stopped: stop)))
        #expect(document["complete"] as? Bool == false)
        #expect(document["stopped"] as? String == "exchanging MTU: interrupted")
    }

    static func scan() -> AdvertiserScan.Result {
        var collector = ScanCollector()
        let esp = DeviceAddress(0x240A_C412_1A2B)
        let phone = DeviceAddress(0x4A00_0000_0001, kind: .random)
        for (rssi, ms) in [(-60, 100), (-50, 200), (-58, 300)] {
            collector.add(
                Advertisement(
                    address: esp,
                    data: AdvertisingData(
                        localName: "ESP-Point-1a2b", serviceUUIDs: [BluetoothUUID(0x180F), Self.custom],
                        manufacturerData: (.testing, [1, 4, 2, 0, 0])),
                    rssi: Int8(rssi), connectable: true, received: RigInstant(sinceOrigin: .milliseconds(ms))))
        }
        collector.add(
            Advertisement(
                address: phone, data: AdvertisingData(), rssi: -80, connectable: false,
                received: RigInstant(sinceOrigin: .milliseconds(350))))
        return AdvertiserScan.Result(devices: collector.devices, duration: .milliseconds(2500), interrupted: true)
    }

    @Test("the scan table: strongest first, last and strongest RSSI, names where known")
    func scanText() {
        #expect(
            ScanText.lines(Self.scan()) == [
                "ADDRESS            TYPE    RSSI  MAX  REPORTS  CONN  NAME            "
                    + "SERVICES                                       MANUFACTURER DATA",
                "24:0A:C4:12:1A:2B  public   -58  -50        3  yes   ESP-Point-1a2b  "
                    + "Battery, 6e400001-b5a3-f393-e0a9-e50e24dcca9e  0xFFFF: 01 04 02 00 00",
                "4A:00:00:00:00:01  random   -80  -80        1  no    -               "
                    + "-                                              -",
                "2 advertisers, 4 reports in 2.500 s (stopped early)",
            ])
        let empty = AdvertiserScan.Result(devices: [], duration: .seconds(10), interrupted: false)
        #expect(ScanText.lines(empty) == ["no advertisers in 10.000 s"])
    }

    @Test("the scan's JSON document: one entry per advertiser with every key")
    func scanJSON() throws {
        let document = try Self.object(try ScanDocument.json(Self.scan()))
        #expect(Set(document.keys) == ["devices", "duration_s", "interrupted"])
        #expect(document["duration_s"] as? Double == 2.5)
        #expect(document["interrupted"] as? Bool == true)
        let devices = try #require(document["devices"] as? [[String: Any]])
        #expect(devices.count == 2)
        for device in devices {
            #expect(
                Set(device.keys) == [
                    "address", "address_type", "connectable", "first_seen_s", "last_seen_s", "manufacturer_data",
                    "name",
                    "reports", "rssi_last", "rssi_max", "services",
                ])
        }
        let esp = devices[0]
        #expect(esp["address"] as? String == "24:0A:C4:12:1A:2B")
        #expect(esp["reports"] as? Int == 3)
        #expect(esp["rssi_last"] as? Int == -58)
        #expect(esp["rssi_max"] as? Int == -50)
        #expect(esp["first_seen_s"] as? Double == 0.1)
        #expect(esp["last_seen_s"] as? Double == 0.3)
        let services = try #require(esp["services"] as? [[String: Any]])
        #expect(services.map { $0["uuid"] as? String } == ["180F", Self.custom.description])
        #expect(services[0]["name"] as? String == "Battery")
        #expect(services[1]["name"] is NSNull)
        let manufacturer = try #require((esp["manufacturer_data"] as? [[String: Any]])?.first)
        #expect(manufacturer["company_id"] as? Int == 0xFFFF)
        #expect(manufacturer["company"] as? String == "0xFFFF")
        #expect(manufacturer["hex"] as? String == "0104020000")
        #expect(devices[1]["name"] is NSNull)
        #expect(devices[1]["connectable"] as? Bool == false)
    }
}
