import BLECore
import CentralStack
import Testing

/// The GATT walker against BLECore's GATT server: what it reads, what it must not read, and how refusals and
/// long values come out.
@Suite("GATT walker on a GATT server")
struct GATTWalkerTests {
    static let service = BluetoothUUID("6e400001-b5a3-f393-e0a9-e50e24dcca9e")!
    static let writeOnly = BluetoothUUID("6e400002-b5a3-f393-e0a9-e50e24dcca9e")!
    static let long = BluetoothUUID("6e400003-b5a3-f393-e0a9-e50e24dcca9e")!
    static let locked = BluetoothUUID("6e400004-b5a3-f393-e0a9-e50e24dcca9e")!
    static let failing = BluetoothUUID("6e400005-b5a3-f393-e0a9-e50e24dcca9e")!
    static let secretDescriptor = BluetoothUUID("6e400006-b5a3-f393-e0a9-e50e24dcca9e")!
    static let longValue: [UInt8] = (0..<300).map { UInt8(truncatingIfNeeded: $0 * 7 + 1) }

    /// Answers reads of the one dynamic value, the failing characteristic, with an application error.
    struct Application: GATTServerApplication, Sendable {
        mutating func read(_ access: GATTServer.Access) -> Result<[UInt8], ATT.ErrorCode> {
            .failure(ATT.ErrorCode(rawValue: 0x80))
        }
    }

    static func server() throws -> GATTServer {
        try GATTServer(services: [
            .init(
                BluetoothUUID(0x1800),
                characteristics: [.init(BluetoothUUID(0x2A00), properties: .read, value: .stored("walker"))]),
            .init(
                service,
                characteristics: [
                    // Writable, not readable; its permissions would even allow a read: only the property stops it.
                    .init(writeOnly, properties: .write, permissions: .readWrite, value: .stored([0xAA])),
                    .init(
                        long, properties: [.read, .notify], value: .stored(longValue),
                        descriptors: [
                            .userDescription("three hundred bytes"),
                            .init(secretDescriptor, permissions: .write, value: .stored([1, 2, 3])),
                        ]),
                    .init(locked, properties: .read, permissions: [.read, .readAuthenticated], value: .stored([7])),
                    .init(failing, properties: .read, value: .dynamic),
                ]),
        ])
    }

    static func walk() async throws -> (GATTTable, ProbeTesting.LoopbackServer<Application>, UInt16) {
        let peer = ProbeTesting.LoopbackServer(try server(), application: Application())
        let connection = peer.connect()
        let mtu = try await connection.exchangeMTU(preferred: Probe.preferredMTU)
        let table = await GATTWalker.walk(connection)
        return (table, peer, mtu)
    }

    @Test("the whole table comes back: services, characteristics with handles and properties, descriptors")
    func wholeTable() async throws {
        let (table, _, mtu) = try await Self.walk()
        #expect(mtu == 247)
        #expect(table.isComplete)
        #expect(table.services.map(\.uuid) == [BluetoothUUID(0x1800), Self.service])
        let custom = table.services[1]
        #expect(custom.characteristics.map(\.uuid) == [Self.writeOnly, Self.long, Self.locked, Self.failing])
        #expect(custom.characteristics.map(\.properties) == [.write, [.read, .notify], .read, .read])
        let long = try #require(table.characteristic(Self.long))
        #expect(long.valueHandle == long.declarationHandle + 1)
        #expect(
            long.descriptors.map(\.uuid) == [
                GATT.AttributeType.clientCharacteristicConfiguration,
                GATT.AttributeType.characteristicUserDescription, Self.secretDescriptor,
            ])
        #expect(long.descriptors.map(\.handle) == [long.valueHandle + 1, long.valueHandle + 2, long.valueHandle + 3])
        #expect(table.characteristic(BluetoothUUID(0x2A00))?.value == .value(Array("walker".utf8)))
    }

    @Test("a characteristic without the Read property is never read: the server receives no read for its handle")
    func neverReadsTheUnreadable() async throws {
        let (table, peer, _) = try await Self.walk()
        let writeOnly = try #require(table.characteristic(Self.writeOnly))
        #expect(writeOnly.value == nil)
        #expect(peer.requests(.readRequest, handle: writeOnly.valueHandle) == 0)
        #expect(peer.requests(.readBlobRequest, handle: writeOnly.valueHandle) == 0)
        // Every other characteristic value was read, once: the count above is not zero by accident.
        for uuid in [Self.long, Self.locked, Self.failing, BluetoothUUID(0x2A00)] {
            let handle = try #require(table.characteristic(uuid)).valueHandle
            #expect(peer.requests(.readRequest, handle: handle) == 1, "\(uuid)")
        }
    }

    @Test("a value longer than the ATT_MTU is read whole, with Read Blob requests")
    func longValueReadWhole() async throws {
        let (table, peer, _) = try await Self.walk()
        let long = try #require(table.characteristic(Self.long))
        #expect(long.value == .value(Self.longValue))
        // 300 bytes at ATT_MTU 247: 246 in the Read Response, the other 54 in one Read Blob Response.
        #expect(peer.requests(.readBlobRequest, handle: long.valueHandle) == 1)
    }

    @Test("descriptors are all read; a refusal is the descriptor's result, not the walk's failure")
    func descriptorRefusalInPlace() async throws {
        let (table, _, _) = try await Self.walk()
        let long = try #require(table.characteristic(Self.long))
        #expect(
            long.descriptors.map(\.value) == [
                .value([0, 0]), .value(Array("three hundred bytes".utf8)), .error(.readNotPermitted),
            ])
        #expect(table.isComplete)
    }

    @Test("a readable characteristic the server refuses shows the ATT error in place")
    func attErrorOnReadable() async throws {
        let (table, _, _) = try await Self.walk()
        #expect(table.characteristic(Self.locked)?.value == .error(.insufficientAuthentication))
        #expect(table.characteristic(Self.failing)?.value == .error(ATT.ErrorCode(rawValue: 0x80)))
    }

    @Test("the link going down mid-walk stops the walk and keeps what was found")
    func linkLostMidWalk() async throws {
        let peer = ProbeTesting.LoopbackServer(try Self.server(), application: Application())
        let connection = peer.connect()
        connection.linkDown(.connectionTimeout)
        let table = await GATTWalker.walk(connection)
        #expect(table.services.isEmpty)
        #expect(
            table.stopped
                == GATTTable.Stop(during: "discovering primary services", error: .disconnected(.connectionTimeout)))
    }
}
