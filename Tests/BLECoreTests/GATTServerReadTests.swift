import Testing

@testable import BLECore

@Suite("GATT server reads")
struct GATTServerReadTests {
    typealias Profile = GATTServerTestProfile

    static let readBlobCases: [(String, String)] = [
        ("0C 1600 1600", "0D " + bytesHex(Profile.longValue[22..<44])),
        ("0C 1600 5800", "0D " + bytesHex(Profile.longValue[88...])),
        ("0C 1600 6400", "0D"),
        ("0C 1600 6500", "01 0C 1600 07"),
        ("0C 0300 0400", "0D " + utf8Hex("essif")),
    ]

    @Test("Read returns a stored value")
    func readStored() throws {
        var harness = try GATTServerHarness()
        #expect(harness.receive("0A 0300") == [sendPDU("0B " + utf8Hex("Espressif"))])
        #expect(harness.receive("0A 0800") == [sendPDU("0B 64")])
        #expect(harness.receive("0A 0A00") == [sendPDU("0B " + utf8Hex("Battery"))])
        #expect(harness.app.events.isEmpty)
    }

    @Test("Read of a dynamic value asks the application, per connection")
    func readDynamic() throws {
        var harness = try GATTServerHarness()
        #expect(harness.receive("0A 0E00") == [sendPDU("0B " + Profile.readingValue.hexString)])
        #expect(
            harness.receive("0A 1800", from: 2) == [
                sendPDU("0B " + RecordingGATTApplication.challenge(2).hexString, to: 2)
            ])
        #expect(harness.app.events == [.read(14, 1), .read(24, 2)])
    }

    @Test("Read of a dynamic value the application refuses answers its error")
    func readDynamicRefused() throws {
        var server = try GATTServer(services: Profile.services)
        // The static application has no dynamic values: the default answer is 0x0E Unlikely Error.
        #expect(server.receive([0x0A, 0x0E, 0x00], from: 1) == [sendPDU("01 0A 0E00 0E")])
    }

    @Test("Read Using Characteristic UUID: Read By Type with a characteristic UUID reads dynamic values too")
    func readByCharacteristicUUID() throws {
        var harness = try GATTServerHarness()
        #expect(
            harness.receive("08 0100 FFFF " + Profile.wire(0x0101)) == [
                sendPDU("09 10 0E00 " + Profile.readingValue.hexString)
            ])
        #expect(harness.receive("08 0100 FFFF 192A") == [sendPDU("09 03 0800 64")])
    }

    @Test("Read By Type stops before an attribute it cannot read, and fails when that is the first match")
    func readByTypeStopsAtUnreadable() throws {
        var harness = try GATTServerHarness()
        let services: [GATTServer.Service] = [
            .init(
                BluetoothUUID(0x1800),
                characteristics: [
                    .init(BluetoothUUID(0x2A00), properties: .read, value: .stored([1])),
                    .init(
                        BluetoothUUID(0x2A00), properties: .read, permissions: [.read, .readEncrypted],
                        value: .stored([2])),
                ])
        ]
        harness.server = try GATTServer(services: services)
        #expect(harness.receive("08 0100 FFFF 002A") == [sendPDU("09 03 0300 01")])
        #expect(harness.receive("08 0400 FFFF 002A") == [sendPDU("01 08 0500 0F")])
    }

    @Test("Read of a value longer than ATT_MTU − 1 returns its first ATT_MTU − 1 bytes")
    func readTruncatesToMTU() throws {
        var harness = try GATTServerHarness()
        #expect(harness.receive("0A 1600") == [sendPDU("0B " + bytesHex(Profile.longValue.prefix(22)))])
        _ = harness.receive("02 4000")
        #expect(harness.receive("0A 1600") == [sendPDU("0B " + bytesHex(Profile.longValue.prefix(63)))])
    }

    @Test(
        "Read Blob reads a long value from an offset; the end gives an empty response, past it 0x07 Invalid Offset",
        arguments: Self.readBlobCases)
    func readBlob(request: String, response: String) throws {
        var harness = try GATTServerHarness()
        #expect(harness.receive(request) == [sendPDU(response)])
    }

    @Test(
        "Read Blob of a fixed-length value that fits one Read Response is 0x0B Attribute Not Long",
        arguments: [
            ("0C 0800 0000", "01 0C 0800 0B"),  // Battery Level, 1 byte
            ("0C 0900 0100", "01 0C 0900 0B"),  // CCCD, 2 bytes
            ("0C 0100 0000", "01 0C 0100 0B"),  // service declaration
            ("0C 0E00 0000", "01 0C 0E00 0B"),  // Reading, fixed 14 bytes: the application is not asked
        ])
    func readBlobAttributeNotLong(request: String, response: String) throws {
        var harness = try GATTServerHarness()
        #expect(harness.receive(request) == [sendPDU(response)])
        #expect(harness.app.events.isEmpty)
    }

    @Test("Read Blob of a fixed-length value longer than ATT_MTU − 1 reads on")
    func readBlobFixedButLong() throws {
        var harness = try GATTServerHarness()
        let services: [GATTServer.Service] = [
            .init(
                BluetoothUUID(0x1800),
                characteristics: [
                    .init(BluetoothUUID(0x2A00), properties: .read, value: .stored(Array(0..<30)), length: .fixed(30))
                ])
        ]
        harness.server = try GATTServer(services: services)
        #expect(harness.receive("0C 0300 1600") == [sendPDU("0D 16 17 18 19 1A 1B 1C 1D")])
    }

    @Test("Read Multiple concatenates values and cuts them at ATT_MTU − 1")
    func readMultiple() throws {
        var harness = try GATTServerHarness()
        #expect(harness.receive("0E 0800 0300") == [sendPDU("0F 64 " + utf8Hex("Espressif"))])
        #expect(harness.receive("0E 0300 0500 0A00") == [sendPDU("0F " + utf8Hex("Espressifesp-pointBatt"))])
        #expect(harness.receive("0E 0800 5000") == [sendPDU("01 0E 5000 01")])
        #expect(harness.receive("0E 0800 0000") == [sendPDU("01 0E 0000 01")])
        #expect(harness.receive("0E 0800 1100") == [sendPDU("01 0E 1100 02")])
    }

    @Test("Read Multiple Variable gives each value its length and truncates only the last")
    func readMultipleVariable() throws {
        var harness = try GATTServerHarness()
        #expect(harness.receive("20 0800 0300") == [sendPDU("21 0100 64 0900 " + utf8Hex("Espressif"))])
        #expect(
            harness.receive("20 0800 1600") == [sendPDU("21 0100 64 6400 " + bytesHex(Profile.longValue.prefix(17)))])
        // 2 + 9 + 2 + 9 = 22 bytes fill ATT_MTU − 1: the third tuple has no room even for its length.
        #expect(
            harness.receive("20 0300 0300 0800") == [
                sendPDU("21 0900 \(utf8Hex("Espressif")) 0900 \(utf8Hex("Espressif"))")
            ])
        #expect(harness.receive("20 0800 1100") == [sendPDU("01 20 1100 02")])
    }

    @Test(
        "reads check permissions against the connection's security",
        arguments: [
            ("0A 1100", GATTServer.SecurityState.open, "01 0A 1100 02"),  // write-only characteristic
            ("0A 1D00", .open, "01 0A 1D00 02"),
            ("0A 1400", .open, "01 0A 1400 0F"),  // needs encryption
            ("0A 1400", .init(encrypted: true), "0B 0000"),
            ("0A 1B00", .init(authenticated: true), "01 0A 1B00 08"),  // needs authorization
            ("0A 1B00", .init(authorized: true), "0B " + utf8Hex("sec")),
            ("0C 1400 0000", .open, "01 0C 1400 0F"),
            ("0A 0000", .open, "01 0A 0000 01"),
            ("0A 1E00", .open, "01 0A 1E00 01"),
            ("0C FFFF 0000", .open, "01 0C FFFF 01"),
        ])
    func readPermissions(request: String, security: GATTServer.SecurityState, response: String) throws {
        var harness = try GATTServerHarness()
        harness.server.connect(1, security: security)
        #expect(harness.receive(request) == [sendPDU(response)])
    }

    @Test("a CCCD reads as this connection's configuration, 0x0000 until written")
    func readClientConfiguration() throws {
        var harness = try GATTServerHarness()
        #expect(harness.receive("0A 0900") == [sendPDU("0B 0000")])
        #expect(harness.receive("12 0900 0100") == [sendPDU("13")])
        #expect(harness.receive("0A 0900") == [sendPDU("0B 0100")])
        #expect(harness.receive("0A 0900", from: 2) == [sendPDU("0B 0000", to: 2)])
        #expect(harness.receive("08 0100 FFFF 0229") == [sendPDU("09 04 0900 0100 0F00 0000 1200 0000")])
    }
}
