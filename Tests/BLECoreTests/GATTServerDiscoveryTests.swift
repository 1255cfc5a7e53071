import Testing

@testable import BLECore

@Suite("GATT server discovery")
struct GATTServerDiscoveryTests {
    typealias Profile = GATTServerTestProfile

    @Test(
        "Exchange MTU answers the server's MTU and settles on min(client, server), never below 23",
        arguments: [
            ("02 F700", 247 as UInt16), ("02 0502", 517), ("02 0010", 517), ("02 1700", 23), ("02 1000", 23),
        ])
    func exchangeMTU(request: String, effective: UInt16) throws {
        var harness = try GATTServerHarness()
        #expect(harness.receive(request) == [sendPDU("03 0502")])
        #expect(harness.server.mtu(of: 1) == effective)
    }

    @Test("a second Exchange MTU is answered but does not change the agreed MTU")
    func secondExchangeKeepsMTU() throws {
        var harness = try GATTServerHarness(configuration: .init(maximumMTU: 247))
        #expect(harness.receive("02 0502") == [sendPDU("03 F700")])
        #expect(harness.receive("02 4000") == [sendPDU("03 F700")])
        #expect(harness.server.mtu(of: 1) == 247)
        #expect(harness.server.mtu(of: 2) == 23)
    }

    @Test("discover all primary services: one response per UUID width, then Attribute Not Found")
    func discoverAllPrimaryServices() throws {
        var harness = try GATTServerHarness()
        #expect(harness.receive("10 0100 FFFF 0028") == [sendPDU("11 06 0100 0500 0A18 0600 0A00 0F18")])
        #expect(harness.receive("10 0B00 FFFF 0028") == [sendPDU("11 14 0B00 1800 " + Profile.wire(0x0100))])
        #expect(harness.receive("10 1900 FFFF 0028") == [sendPDU("01 10 1900 0A")])
        #expect(harness.receive("10 0100 FFFF 0128") == [sendPDU("11 06 1900 1D00 EDFE")])
    }

    @Test("Read By Group Type on a range starting inside a service lists only declarations in the range")
    func groupTypeRangeStartsInsideService() throws {
        var harness = try GATTServerHarness()
        #expect(harness.receive("10 0200 0600 0028") == [sendPDU("11 06 0600 0A00 0F18")])
    }

    @Test("Read By Group Type accepts the 128-bit form of «Primary Service»")
    func groupTypeLongForm() throws {
        var harness = try GATTServerHarness()
        let longPrimary = BluetoothUUID(0x2800).littleEndianBytes(width: 16)!.hexString
        #expect(harness.receive("10 0100 0500 " + longPrimary) == [sendPDU("11 06 0100 0500 0A18")])
    }

    @Test(
        "Read By Group Type groups only by service types, else 0x10 Unsupported Group Type",
        arguments: ["0328", "0228", "0A18", Profile.wire(0x0100)])
    func unsupportedGroupType(type: String) throws {
        var harness = try GATTServerHarness()
        #expect(harness.receive("10 0100 FFFF " + type) == [sendPDU("01 10 0100 10")])
    }

    @Test("Read By Group Type responses fit a 23-byte MTU")
    func groupTypeFitsMTU() throws {
        let services = (0..<10).map { GATTServer.Service(BluetoothUUID(0x1800 + $0), characteristics: []) }
        var server = try GATTServer(services: services)
        let actions = server.receive([0x10, 0x01, 0x00, 0xFF, 0xFF, 0x00, 0x28], from: 1)
        // (23 − 2) / 6 = 3 entries.
        #expect(actions == [sendPDU("11 06 0100 0100 0018 0200 0200 0118 0300 0300 0218")])
    }

    @Test("discover primary service by UUID: Find By Type Value matches 16- and 128-bit UUIDs in either form")
    func discoverPrimaryServiceByUUID() throws {
        var harness = try GATTServerHarness()
        #expect(harness.receive("06 0100 FFFF 0028 0F18") == [sendPDU("07 0600 0A00")])
        let longBattery = BluetoothUUID(0x180F).littleEndianBytes(width: 16)!.hexString
        #expect(harness.receive("06 0100 FFFF 0028 " + longBattery) == [sendPDU("07 0600 0A00")])
        #expect(harness.receive("06 0100 FFFF 0028 " + Profile.wire(0x0100)) == [sendPDU("07 0B00 1800")])
        #expect(harness.receive("06 0700 FFFF 0028 0F18") == [sendPDU("01 06 0700 0A")])
        #expect(harness.receive("06 0100 FFFF 0028 0D18") == [sendPDU("01 06 0100 0A")])
    }

    @Test("Find By Type Value on a non-grouping type reports the found handle as its own group end")
    func findByTypeValueNonGrouping() throws {
        var harness = try GATTServerHarness()
        #expect(harness.receive("06 0100 FFFF 0129 " + utf8Hex("Battery")) == [sendPDU("07 0A00 0A00")])
    }

    @Test("discover characteristics: Read By Type 0x2803 returns declarations of one length per response")
    func discoverCharacteristics() throws {
        var harness = try GATTServerHarness()
        #expect(harness.receive("08 0100 0500 0328") == [sendPDU("09 07 0200 02 0300 292A 0400 02 0500 242A")])
        #expect(harness.receive("08 0600 0A00 0328") == [sendPDU("09 07 0700 12 0800 192A")])
        #expect(harness.receive("08 0B00 1800 0328") == [sendPDU("09 15 0D00 12 0E00 " + Profile.wire(0x0101))])
        #expect(harness.receive("08 0E00 1800 0328") == [sendPDU("09 15 1000 28 1100 " + Profile.wire(0x0102))])
        #expect(harness.receive("08 1900 1D00 0328") == [sendPDU("09 07 1A00 02 1B00 002A 1C00 08 1D00 012A")])
        #expect(harness.receive("08 1E00 FFFF 0328") == [sendPDU("01 08 1E00 0A")])
    }

    @Test("a larger MTU carries several 128-bit characteristic declarations in one response")
    func characteristicDeclarationsAtLargerMTU() throws {
        var harness = try GATTServerHarness()
        _ = harness.receive("02 F700")
        let expected =
            "09 15 0D00 12 0E00 \(Profile.wire(0x0101)) 1000 28 1100 \(Profile.wire(0x0102)) "
            + "1300 0A 1400 \(Profile.wire(0x0204)) 1500 0E 1600 \(Profile.wire(0x0205)) "
            + "1700 0A 1800 \(Profile.wire(0x0203))"
        #expect(harness.receive("08 0B00 1800 0328") == [sendPDU(expected)])
    }

    @Test("find included services: Read By Type 0x2802")
    func findIncludedServices() throws {
        var harness = try GATTServerHarness()
        #expect(harness.receive("08 0B00 1800 0228") == [sendPDU("09 08 0C00 0600 0A00 0F18")])
    }

    @Test("discover descriptors: Find Information switches format between responses")
    func discoverDescriptors() throws {
        var harness = try GATTServerHarness()
        #expect(harness.receive("04 0900 0A00") == [sendPDU("05 01 0900 0229 0A00 0129")])
        #expect(harness.receive("04 0E00 0F00") == [sendPDU("05 02 0E00 " + Profile.wire(0x0101))])
        #expect(harness.receive("04 0F00 0F00") == [sendPDU("05 01 0F00 0229")])
        #expect(harness.receive("04 1E00 FFFF") == [sendPDU("01 04 1E00 0A")])
    }

    @Test("Find Information fills the MTU with 16-bit pairs")
    func findInformationFillsMTU() throws {
        var harness = try GATTServerHarness()
        // (23 − 2) / 4 = 5 pairs.
        #expect(harness.receive("04 0100 FFFF") == [sendPDU("05 01 0100 0028 0200 0328 0300 292A 0400 0328 0500 242A")])
    }

    @Test(
        "a starting handle of 0x0000 or above the ending handle is 0x01 Invalid Handle naming the starting handle",
        arguments: [
            ("04 0000 FFFF", "01 04 0000 01"), ("04 0500 0400", "01 04 0500 01"),
            ("06 0000 FFFF 0028 0F18", "01 06 0000 01"), ("06 0300 0200 0028 0F18", "01 06 0300 01"),
            ("08 0000 0500 0328", "01 08 0000 01"), ("08 0600 0500 0328", "01 08 0600 01"),
            ("10 0000 FFFF 0028", "01 10 0000 01"), ("10 FFFF 0100 0028", "01 10 FFFF 01"),
        ])
    func invalidHandleRange(request: String, response: String) throws {
        var harness = try GATTServerHarness()
        #expect(harness.receive(request) == [sendPDU(response)])
    }
}
