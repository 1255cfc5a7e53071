import BLECore
import CentralStack
import Testing

@Suite("Probe target")
struct ProbeTargetTests {
    static func advertisement(_ address: DeviceAddress, name: String?) -> Advertisement {
        Advertisement(
            address: address, data: AdvertisingData(localName: name), rssi: -50, connectable: true, received: .origin)
    }

    @Test(
        "an address matches whatever its type unless the type is written; anything else is an exact name",
        arguments: [
            ("24:0A:C4:12:1A:2B", DeviceAddress(0x240A_C412_1A2B, kind: .random), true),
            ("24-0a-c4-12-1a-2b", DeviceAddress(0x240A_C412_1A2B), true),
            ("24:0A:C4:12:1A:2B/public", DeviceAddress(0x240A_C412_1A2B, kind: .random), false),
            ("24:0A:C4:12:1A:2B/random", DeviceAddress(0x240A_C412_1A2B, kind: .random), true),
            ("24:0A:C4:12:1A:2C", DeviceAddress(0x240A_C412_1A2B), false),
            ("ESP-Point-1a2b", DeviceAddress(0x1), true),
            ("ESP-Point", DeviceAddress(0x1), false),
        ])
    func matching(text: String, address: DeviceAddress, matches: Bool) {
        #expect(ProbeTarget(text).matches(Self.advertisement(address, name: "ESP-Point-1a2b")) == matches)
    }
}
