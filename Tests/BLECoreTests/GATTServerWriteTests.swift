import Testing

@testable import BLECore

@Suite("GATT server writes")
struct GATTServerWriteTests {
    typealias Profile = GATTServerTestProfile

    @Test("Write Request replaces a stored value after the application accepts it")
    func writeRequestStored() throws {
        var harness = try GATTServerHarness()
        #expect(harness.receive("12 1600 010203") == [sendPDU("13")])
        #expect(harness.server.value(of: 0x16) == [1, 2, 3])
        #expect(harness.receive("0A 1600") == [sendPDU("0B 010203")])
        #expect(harness.app.events == [.write([1, 2, 3], .request, 0x16, 1)])
    }

    @Test("the application refuses writes with its own error: 0x05 until authenticated, 0x0E for a wrong answer")
    func applicationGatesWrites() throws {
        var harness = try GATTServerHarness()
        #expect(harness.receive("12 1100 01") == [sendPDU("01 12 1100 05")])
        let challenge = RecordingGATTApplication.challenge(1)
        #expect(harness.receive("0A 1800") == [sendPDU("0B " + challenge.hexString)])
        #expect(harness.receive("12 1800 " + challenge.hexString) == [sendPDU("01 12 1800 0E")])
        #expect(harness.receive("12 1800 " + RecordingGATTApplication.answer(1).hexString) == [sendPDU("13")])
        #expect(harness.receive("12 1100 01") == [sendPDU("13")])
        // Another connection is not authenticated.
        #expect(harness.receive("12 1100 01", from: 2) == [sendPDU("01 12 1100 05", to: 2)])
    }

    @Test(
        "Write Request errors: handle, permission, security and length",
        arguments: [
            ("12 0000 01", GATTServer.SecurityState.open, "01 12 0000 01"),
            ("12 1E00 01", .open, "01 12 1E00 01"),
            ("12 0300 01", .open, "01 12 0300 03"),  // read-only characteristic
            ("12 0200 01", .open, "01 12 0200 03"),  // characteristic declaration
            ("12 0100 0F18", .open, "01 12 0100 03"),  // service declaration
            ("12 0A00 01", .open, "01 12 0A00 03"),  // read-only user description
            ("12 1400 0100", .open, "01 12 1400 05"),  // needs authentication
            ("12 1400 0100", .init(encrypted: true), "01 12 1400 05"),
            ("12 1400 0100", .init(authenticated: true), "13"),
            ("12 1800 0102", .open, "01 12 1800 0D"),  // Auth is exactly 16 bytes
            ("12 1600 " + String(repeating: "AA", count: 513), .open, "01 12 1600 0D"),
            ("12 1600 " + String(repeating: "AA", count: 512), .open, "13"),
        ])
    func writeRequestErrors(request: String, security: GATTServer.SecurityState, response: String) throws {
        var harness = try GATTServerHarness()
        harness.server.connect(1, security: security)
        #expect(harness.receive("02 0502") == [sendPDU("03 0502")])  // room for 512-byte values
        #expect(harness.receive(request) == [sendPDU(response)])
    }

    @Test("a failed write changes nothing and the application is not asked")
    func failedWriteChangesNothing() throws {
        var harness = try GATTServerHarness()
        _ = harness.receive("02 0502")
        _ = harness.receive("12 1600 " + String(repeating: "AA", count: 513))
        _ = harness.receive("12 1400 0100")
        #expect(harness.server.value(of: 0x16) == Profile.longValue)
        #expect(harness.server.value(of: 0x14) == [0, 0])
        #expect(harness.app.events.isEmpty)
    }

    @Test("Write Command applies silently and drops silently")
    func writeCommand() throws {
        var harness = try GATTServerHarness()
        #expect(harness.receive("52 1600 0909").isEmpty)
        #expect(harness.server.value(of: 0x16) == [9, 9])
        #expect(harness.receive("52 0300 01").isEmpty)  // not permitted
        #expect(harness.receive("52 5000 01").isEmpty)  // no such handle
        #expect(harness.receive("52 1100 01").isEmpty)  // refused by the application
        #expect(harness.receive("52 16").isEmpty)  // malformed
        #expect(harness.server.value(of: 0x03) == Array("Espressif".utf8))
        #expect(harness.app.events == [.write([9, 9], .command, 0x16, 1), .write([1], .command, 0x11, 1)])
    }

    @Test("Signed Write Command is ignored: the server holds no signing keys")
    func signedWriteIgnored() throws {
        var harness = try GATTServerHarness()
        #expect(harness.receive("D2 1600 0102 000102030405060708090A0B").isEmpty)
        #expect(harness.receive("D2 1600").isEmpty)
        #expect(harness.server.value(of: 0x16) == Profile.longValue)
        #expect(harness.app.events.isEmpty)
    }

    @Test("subscribing writes the CCCD per connection and reports each change to the application")
    func subscribe() throws {
        var harness = try GATTServerHarness()
        #expect(harness.receive("12 0900 0100") == [sendPDU("13")])
        #expect(harness.receive("12 0900 0100") == [sendPDU("13")])  // no change, no report
        #expect(harness.receive("12 1200 0200", from: 2) == [sendPDU("13", to: 2)])
        #expect(harness.receive("52 0900 0000").isEmpty)
        #expect(
            harness.app.events == [
                .configuration(.notifications, cccd: 9, value: 8, 1),
                .configuration(.indications, cccd: 18, value: 17, 2),
                .configuration([], cccd: 9, value: 8, 1),
            ])
        #expect(harness.server.clientConfiguration(17, for: 2) == .indications)
        #expect(harness.server.clientConfiguration(17, for: 1) == [])
    }

    @Test(
        "CCCD writes: 0x0D unless 2 bytes, 0xFD for a bit the characteristic does not support, reserved bits ignored",
        arguments: [
            ("12 0900 01", "01 12 0900 0D"),
            ("12 0900 010000", "01 12 0900 0D"),
            ("12 0900 0200", "01 12 0900 FD"),  // Battery Level does not indicate
            ("12 0900 0300", "01 12 0900 FD"),
            ("12 1200 0100", "01 12 1200 FD"),  // Log Control does not notify
            ("12 0900 0500", "13"),
            ("12 0900 01FF", "13"),
        ])
    func clientConfigurationErrors(request: String, response: String) throws {
        var harness = try GATTServerHarness()
        #expect(harness.receive(request) == [sendPDU(response)])
        let expected: GATT.ClientConfiguration = response == "13" ? .notifications : []
        #expect(harness.server.clientConfiguration(8, for: 1) == expected)
    }

    @Test("a CCCD can require encryption to subscribe")
    func protectedClientConfiguration() throws {
        let services: [GATTServer.Service] = [
            .init(
                BluetoothUUID(0x180D),
                characteristics: [
                    .init(
                        BluetoothUUID(0x2A37), properties: .notify,
                        clientConfigurationPermissions: [.read, .write, .writeEncrypted])
                ])
        ]
        var server = try GATTServer(services: services)
        #expect(server.receive([0x12, 0x04, 0x00, 0x01, 0x00], from: 1) == [sendPDU("01 12 0400 0F")])
        server.setSecurity(.init(encrypted: true), for: 1)
        #expect(server.receive([0x12, 0x04, 0x00, 0x01, 0x00], from: 1) == [sendPDU("13")])
    }
}
