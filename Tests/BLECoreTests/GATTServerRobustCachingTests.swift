import Testing

@testable import BLECore

/// Client Supported Features, Service Changed and robust caching on the server (Core Vol 3 Part G §2.5.2.1, §7).
///
/// | handle | attribute |
/// |---|---|
/// | 0x0001 | «Primary Service» 1801 |
/// | 0x0002/3/4 | Service Changed (indicate), CCCD 0x0004 |
/// | 0x0005/6 | Client Supported Features (read, write) |
/// | 0x0007/8 | Database Hash (read) |
/// | 0x0009 | «Primary Service» 180F |
/// | 0x000A/B/C | Battery Level (read, notify), CCCD 0x000C |
/// | 0x000D… | (after the change) a vendor service |
struct RobustCachingHarness {
    static let battery = GATTServer.Service(
        BluetoothUUID(0x180F),
        characteristics: [
            GATTServer.Characteristic(BluetoothUUID(0x2A19), properties: [.read, .notify], value: .stored([77]))
        ])
    static let extra = GATTServer.Service(
        BluetoothUUID(0xFEED),
        characteristics: [GATTServer.Characteristic(BluetoothUUID(0x2A00), properties: .read, value: .stored("x"))])

    var server: GATTServer
    var app = GATTServer.StaticApplication()

    init() throws { server = try GATTServer(services: [.genericAttribute(), Self.battery]) }

    mutating func receive(_ hex: String, from connection: GATTServer.ConnectionID = 1) -> [GATTServer.Action] {
        server.receive([UInt8](hex: hex) ?? [], from: connection, application: &app)
    }

    /// Connects `connection`, enables robust caching and subscribes to Service Changed.
    mutating func robustClient(_ connection: GATTServer.ConnectionID) {
        server.connect(connection)
        #expect(receive("12 0600 01", from: connection) == [sendPDU("13", to: connection)])
        #expect(receive("12 0400 0200", from: connection) == [sendPDU("13", to: connection)])
    }

    mutating func change() -> [GATTServer.Action] {
        server.replaceDatabase(try! GATTServer.Database(services: [.genericAttribute(), Self.battery, Self.extra]))
    }
}

@Suite("GATT server robust caching")
struct GATTServerRobustCachingTests {
    @Test("Client Supported Features is per client; a set bit cannot be cleared (0x13 Value Not Allowed)")
    func clientSupportedFeatures() throws {
        var h = try RobustCachingHarness()
        h.server.connect(1)
        h.server.connect(2)
        #expect(h.receive("0A 0600") == [sendPDU("0B 00")])
        #expect(h.receive("12 0600 07") == [sendPDU("13")])
        #expect(h.receive("0A 0600") == [sendPDU("0B 07")])
        #expect(h.receive("0A 0600", from: 2) == [sendPDU("0B 00", to: 2)])
        #expect(h.receive("12 0600 01") == [sendPDU("01 12 0600 13")])
        #expect(
            h.server.clientFeatures(of: 1) == [.robustCaching, .enhancedATTBearer, .multipleHandleValueNotifications])
        h.server.disconnect(1)
        h.server.connect(1)
        #expect(h.receive("0A 0600") == [sendPDU("0B 00")], "a client without a bond starts every connection afresh")
    }

    @Test("Read By Type «Database Hash» answers the hash from the whole range")
    func readHashByType() throws {
        var h = try RobustCachingHarness()
        h.server.connect(1)
        let hash = h.server.database.hash
        #expect(h.receive("08 0100 FFFF 2A2B") == [sendPDU("09 12 0800 " + hash.hexString)])
    }

    @Test("a table change indicates Service Changed over the whole range and changes the hash")
    func changeIndicates() throws {
        var h = try RobustCachingHarness()
        h.robustClient(1)
        h.server.connect(2)
        let before = h.server.database.hash
        #expect(h.change() == [sendPDU("1D 0300 0100 FFFF")])
        #expect(h.server.database.hash != before)
        #expect(!h.server.isChangeAware(1) && !h.server.isChangeAware(2))
    }

    @Test("a change-unaware robust client gets 0x12 once, then the next request is served")
    func outOfSyncThenAware() throws {
        var h = try RobustCachingHarness()
        h.robustClient(1)
        _ = h.change()
        #expect(h.receive("0A 0B00") == [sendPDU("01 0A 0000 12")])
        #expect(h.receive("0A 0B00") == [sendPDU("0B 4D")])
        #expect(h.server.isChangeAware(1))
        #expect(h.receive("0A 0B00") == [sendPDU("0B 4D")])
    }

    @Test("confirming Service Changed makes the client change-aware without a 0x12")
    func confirmationMakesAware() throws {
        var h = try RobustCachingHarness()
        h.robustClient(1)
        _ = h.change()
        #expect(h.receive("1E").isEmpty)
        #expect(h.server.isChangeAware(1))
        #expect(h.receive("0A 0B00") == [sendPDU("0B 4D")])
    }

    @Test("reading the hash by type is served while change-unaware; the request after it makes the client aware")
    func hashReadMakesAware() throws {
        var h = try RobustCachingHarness()
        h.robustClient(1)
        _ = h.change()
        let hash = h.server.database.hash
        #expect(h.receive("08 0100 FFFF 2A2B") == [sendPDU("09 12 0800 " + hash.hexString)])
        #expect(h.receive("0A 0B00") == [sendPDU("0B 4D")])
        #expect(h.server.isChangeAware(1))
    }

    @Test("a change-unaware robust client's commands are ignored")
    func commandsIgnored() throws {
        var h = try RobustCachingHarness()
        h.robustClient(1)
        _ = h.change()
        #expect(h.receive("52 0C00 0100").isEmpty)
        #expect(h.server.subscribers(0x000B, for: .notifications).isEmpty)
    }

    @Test("a client that did not enable robust caching is served as before, and keeps matching subscriptions")
    func withoutRobustCaching() throws {
        var h = try RobustCachingHarness()
        h.server.connect(2)
        #expect(h.receive("12 0C00 0100", from: 2) == [sendPDU("13", to: 2)])
        _ = h.change()
        #expect(h.receive("0A 0B00", from: 2) == [sendPDU("0B 4D", to: 2)])
        #expect(h.server.subscribers(0x000B, for: .notifications) == [2])
    }
}
