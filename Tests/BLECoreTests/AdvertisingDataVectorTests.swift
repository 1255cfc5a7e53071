import Testing

@testable import BLECore

/// Byte vectors for every typed AD structure: decode to the expected structures and re-encode to the same bytes.
@Suite("AdvertisingData vectors")
struct AdvertisingDataVectorTests {
    static let sensorService = BluetoothUUID("e5b10100-7c3a-4f0e-9d2b-5a1c3e7f9b20")!

    static let vectors: [(String, [ADStructure])] = [
        ("02 01 06", [.flags([.leGeneralDiscoverable, .brEdrNotSupported])]),
        ("02 01 1f", [.flags(AdvertisingFlags(rawValue: 0x1F))]),
        (
            "05 02 0d 18 0f 18",
            [.serviceUUIDs([BluetoothUUID(0x180D), BluetoothUUID(0x180F)], width: .bits16, complete: false)]
        ),
        ("03 03 0a 18", [.serviceUUIDs([BluetoothUUID(0x180A)], width: .bits16, complete: true)]),
        ("01 03", [.serviceUUIDs([], width: .bits16, complete: true)]),
        ("05 04 78 56 34 12", [.serviceUUIDs([BluetoothUUID(uint32: 0x1234_5678)], width: .bits32, complete: false)]),
        ("05 05 0d 18 00 00", [.serviceUUIDs([BluetoothUUID(0x180D)], width: .bits32, complete: true)]),
        (
            "11 06 fb 34 9b 5f 80 00 00 80 00 10 00 00 0d 18 00 00",
            [.serviceUUIDs([BluetoothUUID(0x180D)], width: .bits128, complete: false)]
        ),
        (
            "11 07 20 9b 7f 3e 1c 5a 2b 9d 0e 4f 3a 7c 00 01 b1 e5",
            [.serviceUUIDs([sensorService], width: .bits128, complete: true)]
        ),
        ("04 08 45 53 50", [.localName("ESP", complete: false)]),
        ("0f 09 45 53 50 2d 50 6f 69 6e 74 2d 31 61 32 62", [.localName("ESP-Point-1a2b", complete: true)]),
        ("07 09 68 c3 a9 72 7a 21", [.localName("hérz!", complete: true)]),
        ("01 09", [.localName("", complete: true)]),
        ("02 0a f4", [.txPowerLevel(-12)]),
        ("02 0a 7f", [.txPowerLevel(127)]),
        ("04 16 0f 18 57", [.serviceData(BluetoothUUID(0x180F), [0x57], width: .bits16)]),
        ("05 20 78 56 34 12", [.serviceData(BluetoothUUID(uint32: 0x1234_5678), [], width: .bits32)]),
        (
            "13 21 20 9b 7f 3e 1c 5a 2b 9d 0e 4f 3a 7c 00 01 b1 e5 aa bb",
            [.serviceData(sensorService, [0xAA, 0xBB], width: .bits128)]
        ),
        ("03 19 41 03", [.appearance(.heartRateBelt)]),
        ("08 ff ff ff 01 04 02 00 05", [.manufacturerData(.testing, [0x01, 0x04, 0x02, 0x00, 0x05])]),
        ("03 ff 4c 00", [.manufacturerData(.apple, [])]),
        ("03 1a 00 08", [.raw(.advertisingInterval, [0x00, 0x08])]),
        ("01 3d", [.raw(ADType(rawValue: 0x3D), [])]),
        ("03 01 06 00", [.raw(.flags, [0x06, 0x00])]),
        ("01 01", [.raw(.flags, [])]),
        ("", []),
    ]

    @Test(arguments: vectors)
    func decodesAndReencodesByteForByte(hex: String, structures: [ADStructure]) throws {
        let bytes = try #require([UInt8](hex: hex))
        let data = try AdvertisingData(decoding: bytes)
        #expect(data.structures == structures)
        #expect(try data.encoded(maximumLength: AdvertisingData.extendedMaximumLength) == bytes)
    }

    /// What an esp-point board puts in its scan response: name, sensor service, firmware 1.4.2 with status 0x05.
    @Test func decodesAnEspPointAdvertisement() throws {
        let bytes = try #require(
            [UInt8](
                hex: "02 01 06 11 07 20 9b 7f 3e 1c 5a 2b 9d 0e 4f 3a 7c 00 01 b1 e5 08 ff ff ff 01 04 02 00 05"))
        let data = try AdvertisingData(decoding: bytes)
        #expect(data.flags == .generalDiscoverableLEOnly)
        #expect(data.serviceUUIDs == [Self.sensorService])
        #expect(data.manufacturerData(for: .testing) == [0x01, 0x04, 0x02, 0x00, 0x05])
        #expect(data.manufacturerData(for: .apple) == nil)
        #expect(data.localName == nil)
        #expect(try data.encoded() == bytes)
        #expect(bytes.count == 30 && data.fitsLegacyAdvertising)
    }

    @Test func zeroLengthEndsTheSignificantPartAndPaddingIsDropped() throws {
        let bytes = try #require([UInt8](hex: "02 01 06 00 00 00 00"))
        let data = try AdvertisingData(decoding: bytes)
        #expect(data.structures == [.flags(.generalDiscoverableLEOnly)])
        #expect(try data.encoded() == [0x02, 0x01, 0x06])
        #expect(try AdvertisingData(decoding: [0x00]).structures.isEmpty)
        #expect(try AdvertisingData(decoding: [UInt8](repeating: 0, count: 31)).structures.isEmpty)
    }

    @Test func typedAccessorsReadEveryStructure() throws {
        let bytes = try #require(
            [UInt8](
                hex: "02 01 1a 03 02 0d 18 05 05 78 56 34 12 04 08 48 52 4d 07 09 48 52 4d 2d 30 31 02 0a 00"
                    + "03 19 41 03 04 16 0f 18 57"))
        let data = try AdvertisingData(decoding: bytes)
        #expect(data.flags == AdvertisingFlags(rawValue: 0x1A))
        #expect(data.serviceUUIDs == [BluetoothUUID(0x180D), BluetoothUUID(uint32: 0x1234_5678)])
        #expect(data.localName == "HRM-01", "the complete name wins over the shortened one")
        #expect(data.txPowerLevel == 0)
        #expect(data.appearance == .heartRateBelt)
        #expect(data.serviceData(for: BluetoothUUID(0x180F)) == [0x57])
        #expect(data.serviceData(for: BluetoothUUID(0x180D)) == nil)
        #expect(data.structures(of: .shortenedLocalName) == [.localName("HRM", complete: false)])
    }

    @Test func shortenedNameIsTheLocalNameWhenNoCompleteOneExists() throws {
        let data = try AdvertisingData(decoding: [UInt8](hex: "04 08 48 52 4d 02 01 06")!)
        #expect(data.localName == "HRM")
    }

    @Test func flagsOfAnotherLengthKeepTheirBytesAndReportTheFirstOctet() throws {
        let data = try AdvertisingData(decoding: [0x03, 0x01, 0x05, 0x80])
        #expect(data.flags == [.leLimitedDiscoverable, .brEdrNotSupported])
        #expect(try data.encoded() == [0x03, 0x01, 0x05, 0x80])
        #expect(try AdvertisingData(decoding: [0x01, 0x01]).flags == nil)
    }

    @Test func structuresDescribeThemselves() {
        let data = AdvertisingData(
            flags: .generalDiscoverableLEOnly, localName: "hrm", serviceUUIDs: [BluetoothUUID(0x180D)])
        #expect(
            data.description
                == "Flags 0x06 [general discoverable, no BR/EDR]; Complete List of 16-bit Service UUIDs [180D]; "
                + "Complete Local Name \"hrm\"")
        #expect(ADType.completeLocalName.description == "0x09 (Complete Local Name)")
        #expect(ADType(rawValue: 0x3D).description == "0x3D (AD type)")
    }
}
