import Testing

@testable import BLECore

@Suite("AdvertisingData encoding")
struct AdvertisingDataEncodingTests {
    static let sensorService = BluetoothUUID("e5b10100-7c3a-4f0e-9d2b-5a1c3e7f9b20")!

    @Test func convenienceInitWritesTheUsualOrder() throws {
        let data = AdvertisingData(
            flags: .generalDiscoverableLEOnly, localName: "hrm",
            serviceUUIDs: [BluetoothUUID(0x180D), BluetoothUUID(0x180F)])
        #expect(try data.encoded() == [UInt8](hex: "02 01 06 05 03 0d 18 0f 18 04 09 68 72 6d"))
    }

    @Test func convenienceInitGroupsUUIDsByNarrowestWidth() {
        let data = AdvertisingData(
            serviceUUIDs: [
                Self.sensorService, BluetoothUUID(0x180D), BluetoothUUID(uint32: 0x1234_5678), BluetoothUUID(0x180F),
            ])
        #expect(
            data.structures == [
                .serviceUUIDs([BluetoothUUID(0x180D), BluetoothUUID(0x180F)], width: .bits16, complete: true),
                .serviceUUIDs([BluetoothUUID(uint32: 0x1234_5678)], width: .bits32, complete: true),
                .serviceUUIDs([Self.sensorService], width: .bits128, complete: true),
            ])
    }

    @Test func convenienceInitWithNameAndServicesMatchesWhatScanFiltersRead() {
        let data = AdvertisingData(localName: "ESP-Point-1a2b", serviceUUIDs: [Self.sensorService])
        #expect(data.localName == "ESP-Point-1a2b")
        #expect(data.serviceUUIDs == [Self.sensorService])
        #expect(AdvertisingData().structures.isEmpty)
    }

    @Test func everyTypedStructureRoundTrips() throws {
        let data = AdvertisingData(
            flags: .generalDiscoverableLEOnly, localName: "hérz",
            serviceUUIDs: [BluetoothUUID(0x180D), Self.sensorService],
            txPowerLevel: -4, appearance: .genericSensor,
            serviceData: [(BluetoothUUID(0x180F), [0x57]), (Self.sensorService, [1, 2])],
            manufacturerData: (.testing, [0x01, 0x04, 0x02, 0x00, 0x05]))
        let bytes = try data.encoded(maximumLength: AdvertisingData.extendedMaximumLength)
        #expect(try AdvertisingData(decoding: bytes) == data)
        #expect(data.txPowerLevel == -4)
        #expect(data.appearance == .genericSensor)
        #expect(data.serviceData(for: Self.sensorService) == [1, 2])
    }

    @Test func legacyLimitIsThirtyOneBytes() throws {
        let name = String(repeating: "x", count: 29)
        #expect(try AdvertisingData(localName: name).encoded().count == 31)
        #expect(throws: AdvertisingData.EncodingError.tooLong(length: 32, maximum: 31)) {
            try AdvertisingData(localName: name + "y").encoded()
        }
        #expect(!AdvertisingData(localName: name + "y").fitsLegacyAdvertising)
        #expect(try AdvertisingData(localName: name + "y").encoded(maximumLength: 1650).count == 32)
    }

    /// Everything an esp-point board advertises does not fit one legacy PDU: it has to be split between the
    /// advertisement and the scan response.
    @Test func espPointDataNeedsAScanResponse() {
        let data = AdvertisingData(
            flags: .generalDiscoverableLEOnly, localName: "ESP-Point-1a2b", serviceUUIDs: [Self.sensorService],
            manufacturerData: (.testing, [1, 4, 2, 0, 0]))
        #expect(throws: AdvertisingData.EncodingError.tooLong(length: 46, maximum: 31)) { try data.encoded() }
    }

    @Test func aUUIDWithoutAnAliasOfTheListWidthCannotBeWritten() {
        let list = AdvertisingData(structures: [.serviceUUIDs([Self.sensorService], width: .bits16, complete: true)])
        #expect(throws: AdvertisingData.EncodingError.uuidTooWide(Self.sensorService, type: .completeServiceUUIDs16)) {
            try list.encoded()
        }
        let serviceData = AdvertisingData(structures: [
            .serviceData(BluetoothUUID(uint32: 0x1_0000), [], width: .bits16)
        ])
        #expect(
            throws: AdvertisingData.EncodingError.uuidTooWide(BluetoothUUID(uint32: 0x1_0000), type: .serviceData16)
        ) { try serviceData.encoded() }
    }

    @Test func oneStructureHoldsAtMost254DataBytes() throws {
        let longest = AdvertisingData(structures: [.raw(.uri, [UInt8](repeating: 0x41, count: 254))])
        #expect(try longest.encoded(maximumLength: 1650).prefix(2) == [0xFF, 0x24])
        let tooLong = AdvertisingData(structures: [.manufacturerData(.testing, [UInt8](repeating: 0, count: 253))])
        #expect(
            throws: AdvertisingData.EncodingError.structureTooLong(type: .manufacturerSpecificData, dataLength: 255)
        ) {
            try tooLong.encoded(maximumLength: 1650)
        }
    }

    @Test func settingTheLocalNameReplacesNamesInPlace() {
        var data = AdvertisingData(
            structures: [
                .flags(.generalDiscoverableLEOnly), .localName("HR", complete: false), .txPowerLevel(0),
                .localName("HRM", complete: true),
            ])
        data.localName = "Pulse"
        #expect(
            data.structures == [
                .flags(.generalDiscoverableLEOnly), .localName("Pulse", complete: true), .txPowerLevel(0),
            ])
        data.localName = nil
        #expect(data.structures == [.flags(.generalDiscoverableLEOnly), .txPowerLevel(0)])
        data.localName = "Again"
        #expect(data.structures.last == .localName("Again", complete: true))
    }

    @Test func settingServiceUUIDsReplacesEveryListWhereTheFirstWas() {
        var data = AdvertisingData(
            structures: [
                .flags(.generalDiscoverableLEOnly),
                .serviceUUIDs([BluetoothUUID(0x180A)], width: .bits16, complete: false),
                .localName("x", complete: true), .serviceUUIDs([], width: .bits128, complete: true),
            ])
        data.serviceUUIDs = [Self.sensorService, BluetoothUUID(0x180D)]
        #expect(
            data.structures == [
                .flags(.generalDiscoverableLEOnly),
                .serviceUUIDs([BluetoothUUID(0x180D)], width: .bits16, complete: true),
                .serviceUUIDs([Self.sensorService], width: .bits128, complete: true),
                .localName("x", complete: true),
            ])
        data.serviceUUIDs = []
        #expect(data.structures == [.flags(.generalDiscoverableLEOnly), .localName("x", complete: true)])
    }

    @Test func settingFlagsReplacesThemOrPutsThemFirst() {
        var data = AdvertisingData(localName: "x")
        data.flags = .generalDiscoverableLEOnly
        #expect(data.structures.first == .flags(.generalDiscoverableLEOnly))
        data.flags = [.leLimitedDiscoverable]
        #expect(data.structures == [.flags([.leLimitedDiscoverable]), .localName("x", complete: true)])
        data.flags = nil
        #expect(data.structures == [.localName("x", complete: true)])
    }

    @Test func encodingErrorsSayWhatToDo() {
        #expect(
            AdvertisingData.EncodingError.tooLong(length: 46, maximum: 31).description
                == "advertising data is 46 bytes; at most 31 fit (move structures to the scan response or use "
                + "extended advertising)")
    }
}
