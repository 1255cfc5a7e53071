import Testing

@testable import BLECore

@Suite("GATT server database")
struct GATTServerDatabaseTests {
    typealias Profile = GATTServerTestProfile

    @Test("handles are allocated from 0x0001 in declaration order with a CCCD after each notify/indicate value")
    func handlesFollowDeclarationOrder() throws {
        let database = try GATTServer.Database(services: Profile.services)
        let types = (1...database.attributeCount).map { database.attribute(UInt16($0))!.type }
        let expected: [BluetoothUUID] = [
            .init(0x2800), .init(0x2803), .init(0x2A29), .init(0x2803), .init(0x2A24),
            .init(0x2800), .init(0x2803), .init(0x2A19), .init(0x2902), .init(0x2901),
            .init(0x2800), .init(0x2802), .init(0x2803), Profile.reading, .init(0x2902), .init(0x2803),
            Profile.logControl,
            .init(0x2902), .init(0x2803), Profile.secure, .init(0x2803), Profile.long, .init(0x2803), Profile.auth,
            .init(0x2801), .init(0x2803), .init(0x2A00), .init(0x2803), .init(0x2A01),
        ]
        #expect(types == expected)
        #expect(database.attribute(0) == nil)
        #expect(database.attribute(30) == nil)
    }

    @Test("services and characteristics are discoverable by UUID with their handle ranges")
    func lookupsByUUID() throws {
        let database = try GATTServer.Database(services: Profile.services)
        #expect(database.services.map(\.handles) == [1...5, 6...10, 11...24, 25...29])
        #expect(database.service(BluetoothUUID(0xFEED))?.isPrimary == false)
        #expect(database.valueHandle(service: BluetoothUUID(0x180F), characteristic: BluetoothUUID(0x2A19)) == 8)
        #expect(
            database.clientConfigurationHandle(service: BluetoothUUID(0x180F), characteristic: BluetoothUUID(0x2A19))
                == 9)
        #expect(
            database.descriptorHandle(
                GATT.AttributeType.characteristicUserDescription, service: BluetoothUUID(0x180F),
                characteristic: BluetoothUUID(0x2A19)) == 10)
        #expect(database.clientConfigurationHandle(service: Profile.sensor, characteristic: Profile.logControl) == 18)
        #expect(
            database.clientConfigurationHandle(service: BluetoothUUID(0x180A), characteristic: BluetoothUUID(0x2A29))
                == nil)
        #expect(database.valueHandle(service: BluetoothUUID(0x180A), characteristic: Profile.reading) == nil)
        let reading = try #require(database.characteristic(Profile.reading, in: Profile.sensor))
        #expect(
            reading
                == GATT.Characteristic(
                    uuid: Profile.reading, properties: [.read, .notify], declarationHandle: 13, valueHandle: 14,
                    endHandle: 15))
    }

    @Test("declaration values follow Vol 3 Part G: service UUID, include range and UUID, characteristic properties")
    func declarationValues() throws {
        let database = try GATTServer.Database(services: Profile.services)
        #expect(database.value(of: 1) == [0x0A, 0x18])
        #expect(database.value(of: 11)?.hexString == Profile.wire(0x0100))
        #expect(database.value(of: 12) == [0x06, 0x00, 0x0A, 0x00, 0x0F, 0x18])
        #expect(database.value(of: 7) == [0x12, 0x08, 0x00, 0x19, 0x2A])
        #expect(database.value(of: 16)?.hexString == "281100" + Profile.wire(0x0102))
        #expect(database.value(of: 14) == nil)  // dynamic
        #expect(database.value(of: 9) == nil)  // per connection
    }

    @Test("an include of a 128-bit service carries no UUID")
    func includeOf128BitServiceOmitsUUID() throws {
        let database = try GATTServer.Database(services: [
            .init(Profile.sensor, isPrimary: false, characteristics: []),
            .init(BluetoothUUID(0x1800), includes: [Profile.sensor], characteristics: []),
        ])
        #expect(database.value(of: 3) == [0x01, 0x00, 0x01, 0x00])
    }

    @Test(
        "definitions that cannot form a database are refused with a reason",
        arguments: [
            (
                ServiceList([GATTServer.Service(BluetoothUUID(0x1800), includes: [BluetoothUUID(0x1801)], characteristics: [])]),
                GATTServer.DatabaseError.unknownIncludedService(BluetoothUUID(0x1801), in: BluetoothUUID(0x1800))
            ),
            (
                ServiceList([GATTServer.Service(BluetoothUUID(0x1800), includes: [BluetoothUUID(0x1800)], characteristics: [])]),
                .unknownIncludedService(BluetoothUUID(0x1800), in: BluetoothUUID(0x1800))
            ),
            (
                ServiceList([
                    GATTServer.Service(
                        BluetoothUUID(0x1800),
                        characteristics: [
                            .init(
                                BluetoothUUID(0x2A19), properties: .notify,
                                descriptors: [
                                    .init(BluetoothUUID(0x2902), value: .stored([0, 0]))
                                ])
                        ])
                ]), .clientConfigurationDeclared(characteristic: BluetoothUUID(0x2A19))
            ),
            (
                ServiceList([
                    GATTServer.Service(
                        BluetoothUUID(0x1800),
                        characteristics: [
                            .init(BluetoothUUID(0x2A19), properties: .read, value: .stored([1, 2]), length: .fixed(1))
                        ])
                ]), .invalidInitialValue(BluetoothUUID(0x2A19), length: 2)
            ),
            (
                ServiceList([
                    GATTServer.Service(
                        BluetoothUUID(0x1800),
                        characteristics: [
                            .init(BluetoothUUID(0x2A19), properties: .read, length: .variable(maximum: 600))
                        ])
                ]), .invalidLength(BluetoothUUID(0x2A19), maximum: 600)
            ),
            (
                ServiceList([GATTServer.Service](
                    repeating: .init(
                        BluetoothUUID(0x1800),
                        characteristics: [
                            .init(BluetoothUUID(0x2A19), properties: .read)
                        ]), count: 21_846)),
                .tooManyAttributes(65_538)
            ),
        ])
    func invalidDefinitionsAreRefused(services: ServiceList, error: GATTServer.DatabaseError) {
        #expect(throws: error) { try GATTServer.Database(services: services.services) }
        #expect(!error.description.isEmpty)
    }

    @Test("permissions derive from properties unless given")
    func permissionsDeriveFromProperties() {
        #expect(GATTServer.Permissions([.read, .notify]) == .read)
        #expect(GATTServer.Permissions([.writeWithoutResponse]) == .write)
        #expect(GATTServer.Permissions([.read, .write]) == .readWrite)
        #expect(GATTServer.Permissions([.indicate]) == [])
    }
}

/// A list of service definitions that names itself by its size in test output: the 21 846-service case would
/// otherwise print megabytes.
struct ServiceList: ExpressibleByArrayLiteral, CustomTestStringConvertible, Sendable {
    let services: [GATTServer.Service]
    init(arrayLiteral elements: GATTServer.Service...) { services = elements }
    init(_ services: [GATTServer.Service]) { self.services = services }
    var testDescription: String { "\(services.count) service(s)" }
}
