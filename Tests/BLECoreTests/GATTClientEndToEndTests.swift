import Testing

@testable import BLECore

private typealias Peer = GATTClientTesting.LoopbackPeer
private typealias Device = GATTClientTesting.Device

/// The connection against the sans-I/O ``GATTServer`` in memory: client actions → server.receive → server actions
/// → client, with no sockets. The server's own view of its database is the reference.
@Suite("GATTClient end to end against GATTServer")
struct GATTClientEndToEndTests {
    private static func connect() throws -> (GATTClientConnection, Peer, GATTClientTesting.ManualClock) {
        let peer = Peer(try Device.server())
        let clock = GATTClientTesting.ManualClock()
        let connection = GATTClientConnection(peer: GATTClientTesting.peer, bearer: peer, link: peer, clock: clock)
        peer.attach(connection)
        return (connection, peer, clock)
    }

    @Test(
        "Discovery finds exactly the server's primary services, characteristics and descriptors", arguments: [23, 247])
    func discoveryMatchesTheServer(mtu: UInt16) async throws {
        let (connection, peer, _) = try Self.connect()
        #expect(try await connection.exchangeMTU(preferred: mtu) == mtu)
        let database = peer.server.database
        let services = try await connection.discoverPrimaryServices(nil)
        #expect(services == database.services.filter(\.isPrimary))
        var characteristics: [GATT.Characteristic] = []
        for service in services { characteristics += try await connection.discoverCharacteristics(of: service) }
        let primaryRanges = services.map(\.handles)
        #expect(
            characteristics
                == database.characteristics.filter { c in primaryRanges.contains { $0.contains(c.declarationHandle) } })
        let battery = try #require(characteristics.first { $0.uuid == BluetoothUUID(0x2A19) })
        let descriptors = try await connection.discoverDescriptors(of: battery)
        #expect(
            descriptors.map(\.uuid)
                == [
                    GATT.AttributeType.clientCharacteristicConfiguration,
                    GATT.AttributeType.characteristicUserDescription,
                ])
        #expect(descriptors.map(\.handle) == Array(try #require(battery.descriptorHandles)))
        #expect(
            try await connection.discoverPrimaryServices(Device.service)
                == services.filter { $0.uuid == Device.service })
        #expect(peer.violations == [])
    }

    @Test("Long values are read with Read Blobs and written with Prepare/Execute Write at the default MTU")
    func longReadAndWrite() async throws {
        let (connection, peer, _) = try Self.connect()
        let handle = try #require(
            peer.server.database.valueHandle(service: Device.service, characteristic: Device.long))
        #expect(try await connection.read(handle) == Device.longValue)
        let written: [UInt8] = (0..<200).map { UInt8($0) }
        try await connection.write(written, to: handle)
        #expect(peer.server.value(of: handle) == written)
        #expect(try await connection.read(handle) == written)
        try await connection.reliableWrite([.init(handle: handle, value: [9, 8, 7])])
        #expect(peer.server.value(of: handle) == [9, 8, 7])
        try await connection.writeWithoutResponse([1, 2, 3], to: handle)
        #expect(peer.server.value(of: handle) == [1, 2, 3])
        #expect(try await connection.readMultipleVariable([handle, 3]) == [[1, 2, 3], Array("blerig".utf8)])
        #expect(peer.violations == [])
        let statistics = connection.statistics
        #expect(statistics.requestsSent == peer.requests)
        #expect(statistics.responsesReceived == statistics.requestsSent)
    }

    @Test("Server errors come back as GATTError.att with the request and handle")
    func serverErrors() async throws {
        let (connection, _, _) = try Self.connect()
        await #expect(throws: GATTError.att(.invalidHandle, request: .readRequest, handle: 0x0200)) {
            try await connection.read(0x0200)
        }
        await #expect(throws: GATTError.att(.writeNotPermitted, request: .writeRequest, handle: 3)) {
            try await connection.write([1], to: 3)
        }
    }

    @Test("Notifications and indications reach the subscriber; each indication is confirmed before the next")
    func subscriptions() async throws {
        let (connection, peer, clock) = try Self.connect()
        let database = peer.server.database
        let characteristic = try #require(database.characteristic(Device.stream, in: Device.service))
        let cccd = try #require(
            database.clientConfigurationHandle(service: Device.service, characteristic: Device.stream))
        let indications = try await connection.subscribe(to: characteristic, cccd: cccd, indications: true)
        #expect(peer.server.clientConfiguration(characteristic.valueHandle, for: Peer.id) == .indications)
        clock.advance(by: .milliseconds(40))
        for value: UInt8 in 1...3 { peer.indicate(characteristic.valueHandle, [value]) }
        #expect(peer.server.pendingIndicationCount(for: Peer.id) == 0, "every indication was confirmed")
        var received: [GATT.ValueEvent] = []
        for await event in indications {
            received.append(event)
            if received.count == 3 { break }
        }
        let at = RigInstant(sinceOrigin: .milliseconds(40))
        #expect(
            received
                == (1...3).map {
                    GATT.ValueEvent(handle: characteristic.valueHandle, value: [$0], kind: .indication, received: at)
                })
        try await connection.unsubscribe(from: characteristic, cccd: cccd)
        #expect(peer.server.clientConfiguration(characteristic.valueHandle, for: Peer.id) == [])
        #expect(peer.violations == [])
    }

    @Test("Disconnect asks the transport, waits for the link to go down and ends the streams")
    func disconnect() async throws {
        let (connection, peer, _) = try Self.connect()
        let battery = try #require(
            peer.server.database.characteristic(BluetoothUUID(0x2A19), in: BluetoothUUID(0x180F)))
        let cccd = try #require(
            peer.server.database.clientConfigurationHandle(
                service: BluetoothUUID(0x180F), characteristic: BluetoothUUID(0x2A19)))
        let stream = try await connection.subscribe(to: battery, cccd: cccd, indications: false)
        peer.notify(battery.valueHandle, [42])
        await connection.disconnect()
        #expect(await connection.disconnection() == .localHostTerminated)
        var values: [[UInt8]] = []
        for await event in stream { values.append(event.value) }
        #expect(values == [[42]])
        await #expect(throws: GATTError.disconnected(.localHostTerminated)) { try await connection.read(3) }
    }
}
