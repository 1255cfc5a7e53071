import Testing

@testable import BLECore

/// The Database Hash of a table built with ``GATTServer/Database`` (Core Vol 3 Part G §7.3).
@Suite("GATT Database Hash")
struct GATTServerDatabaseHashTests {
    /// The example database of Core Vol 3 Part G Appendix B: GAP, GATT (the same three characteristics
    /// ``GATTServer/Service/genericAttribute()`` declares), Glucose including a secondary Battery service, and a
    /// characteristic with extended properties.
    static var specificationExample: [GATTServer.Service] {
        typealias C = GATTServer.Characteristic
        return [
            GATTServer.Service(
                BluetoothUUID(0x1800),
                characteristics: [
                    C(BluetoothUUID(0x2A00), properties: [.read, .write], value: .stored("blerig")),
                    C(BluetoothUUID(0x2A01), properties: .read, value: .stored([0, 0])),
                ]),
            .genericAttribute(),
            GATTServer.Service(
                BluetoothUUID(0x1808), includes: [BluetoothUUID(0x180F)],
                characteristics: [
                    C(
                        BluetoothUUID(0x2A18), properties: GATT.CharacteristicProperties(rawValue: 0xA2),
                        value: .stored([1]),
                        descriptors: [
                            GATTServer.Descriptor(
                                GATT.AttributeType.characteristicExtendedProperties, value: .stored([0, 0]),
                                length: .fixed(2))
                        ])
                ]),
            GATTServer.Service(
                BluetoothUUID(0x180F), isPrimary: false,
                characteristics: [C(BluetoothUUID(0x2A19), properties: .read, value: .stored([100]))]),
        ]
    }

    @Test("the specification's example table gives its message and hash, least significant octet first")
    func specificationExample() throws {
        let database = try GATTServer.Database(services: Self.specificationExample)
        #expect(database.hashMessage.hexString == AESCMACVectorTests.specHashMessage)
        #expect(database.hash.hexString == String(AESCMACVectorTests.specHash.reversedHexBytes))
        // The server serves it from the Database Hash characteristic (value handle 0x000D).
        #expect(database.value(of: 0x000D) == database.hash)
    }

    @Test("values and user descriptions' texts do not change the hash; structure does")
    func whatTheHashCovers() throws {
        var services = Self.specificationExample
        let base = try GATTServer.Database(services: services).hash
        services[0].characteristics[0].value = .stored("another name")
        #expect(try GATTServer.Database(services: services).hash == base)
        services[3].characteristics[0].properties = [.read, .notify]
        #expect(try GATTServer.Database(services: services).hash != base)
    }

    @Test("a table without the Generic Attribute service still has a hash, but nothing serves it")
    func hashWithoutService() throws {
        let database = try GATTServer.Database(services: [Array(Self.specificationExample)[3]])
        #expect(database.hash.count == 16)
        #expect(database.characteristic(GATT.GenericAttribute.databaseHash, in: GATT.GenericAttribute.service) == nil)
    }
}

extension String {
    /// The hex string of the same bytes in reverse order.
    var reversedHexBytes: String {
        ([UInt8](hex: self) ?? []).reversed().hexString
    }
}
