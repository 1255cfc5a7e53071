import BLECore
import CentralStack
import Testing

@Suite("Scan collector")
struct ScanCollectorTests {
    static let a = DeviceAddress(0x0000_0000_00AA)
    static let b = DeviceAddress(0xC000_0000_00BB, kind: .random)

    static func report(
        _ address: DeviceAddress, rssi: Int8, at milliseconds: Int64, connectable: Bool = true,
        _ data: AdvertisingData
    ) -> Advertisement {
        Advertisement(
            address: address, data: data, rssi: rssi, connectable: connectable,
            received: RigInstant(sinceOrigin: .milliseconds(milliseconds)))
    }

    @Test("reports fold into one entry per address: counts, last and strongest RSSI, first and last seen")
    func dedupAndRSSI() {
        var collector = ScanCollector()
        collector.add(Self.report(Self.a, rssi: -60, at: 0, AdvertisingData(localName: "a")))
        collector.add(Self.report(Self.b, rssi: -40, at: 5, AdvertisingData()))
        collector.add(Self.report(Self.a, rssi: -50, at: 100, AdvertisingData()))
        collector.add(Self.report(Self.a, rssi: -70, at: 200, AdvertisingData()))
        let devices = collector.devices
        #expect(devices.map(\.address) == [Self.b, Self.a])
        #expect(collector.reportCount == 4)
        let a = devices[1]
        #expect(a.reports == 3)
        #expect(a.lastRSSI == -70)
        #expect(a.maxRSSI == -50)
        #expect(a.name == "a")
        #expect(a.firstSeen == RigInstant(sinceOrigin: .zero))
        #expect(a.lastSeen == RigInstant(sinceOrigin: .milliseconds(200)))
    }

    @Test("a public and a random address with the same bits are two advertisers")
    func addressTypeSeparates() {
        var collector = ScanCollector()
        collector.add(Self.report(DeviceAddress(0xC000_0000_00BB), rssi: -40, at: 0, AdvertisingData()))
        collector.add(Self.report(Self.b, rssi: -40, at: 0, AdvertisingData()))
        #expect(collector.devices.count == 2)
    }

    @Test("manufacturer data is kept per company, latest bytes; service UUIDs and names accumulate")
    func manufacturerDataAndServices() {
        var collector = ScanCollector()
        let apple = CompanyIdentifier.apple, test = CompanyIdentifier.testing
        collector.add(
            Self.report(
                Self.a, rssi: -60, at: 0, connectable: false,
                AdvertisingData(serviceUUIDs: [BluetoothUUID(0x180F)], manufacturerData: (test, [1, 2]))))
        collector.add(
            Self.report(
                Self.a, rssi: -60, at: 100,
                AdvertisingData(
                    structures: [
                        .manufacturerData(apple, [9]), .manufacturerData(test, [3, 4, 5]),
                        .localName("late", complete: false),
                        .serviceUUIDs([BluetoothUUID(0x180D), BluetoothUUID(0x180F)], width: .bits16, complete: true),
                    ])))
        collector.add(Self.report(Self.a, rssi: -60, at: 200, connectable: false, AdvertisingData()))
        let device = collector.devices[0]
        #expect(device.manufacturerData == [.init(company: test, data: [3, 4, 5]), .init(company: apple, data: [9])])
        #expect(device.serviceUUIDs == [BluetoothUUID(0x180F), BluetoothUUID(0x180D)])
        #expect(device.name == "late")
        #expect(device.connectable)
    }
}
