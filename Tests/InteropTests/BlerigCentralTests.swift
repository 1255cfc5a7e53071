import BLECore
import Foundation
import Radios
import Testing

extension Interop {
    /// blerig's own host (``HCIStack`` and ``HCICentral``) on a rootcanal controller, against the Bumble GATT server
    /// of `share/blerig/peers/peripheral.py` on another: every procedure a central uses, checked against what Bumble
    /// says it received.
    @Suite("blerig's central against the Bumble peripheral")
    struct BlerigCentral {
        @Test(
            "scan filters match by name prefix (only in the scan response), by service and by address; a filter nobody passes yields nothing"
        )
        func scanFilters() async throws {
            try await withInteropScope { scope in
                let stage = try await PeripheralStage.start(in: scope, name: "Interop-Scan")
                let central = stage.central

                let byName = try await central.first(ScanFilter(namePrefixes: ["Interop-Sc"]), within: .seconds(5))
                #expect(byName.address == stage.address)
                #expect(byName.data.localName == "Interop-Scan")
                #expect(byName.data.serviceUUIDs == [PeerProfile.service])
                #expect(
                    byName.data.manufacturerData(for: CompanyIdentifier(rawValue: PeerProfile.companyIdentifier))
                        == PeerProfile.manufacturerData)
                #expect(byName.connectable)
                let byService = try await central.first(
                    ScanFilter(services: [PeerProfile.service]), within: .seconds(5))
                #expect(byService.address == stage.address)
                let byAddress = try await central.first(ScanFilter(addresses: [stage.address]), within: .seconds(5))
                #expect(byAddress.data.localName == "Interop-Scan")

                // Filters nobody passes, scanned for a second beside one that proves the scan heard the peripheral
                // meanwhile, again and again.
                let nobody = DeviceAddress(stage.address.value ^ 0x0000_0000_0001, kind: .random)
                let heard = await central.collect(
                    [
                        ScanFilter(addresses: [stage.address], deduplicate: false),
                        ScanFilter(namePrefixes: ["Nobody-"]),
                        ScanFilter(services: [PeerProfile.uuid(0xF0FF)]),
                        ScanFilter(addresses: [nobody]),
                        ScanFilter(addresses: [stage.address], namePrefixes: ["Bumble-"]),
                    ], for: .seconds(1))
                #expect(heard[0].count >= 5, "the peripheral advertises every 20 ms; heard \(heard[0].count) reports")
                for (index, delivered) in heard.enumerated().dropFirst() {
                    #expect(delivered.isEmpty, "filter \(index) passed \(delivered.map(\.address))")
                }

                // The name matched although the advertisement itself does not carry it: the scan response does.
                let reports = stage.host.events.reports(from: stage.address)
                let advertisements = try reports.filter { !$0.scanResponse }.map {
                    try AdvertisingData(decoding: $0.data)
                }
                let responses = try reports.filter(\.scanResponse).map { try AdvertisingData(decoding: $0.data) }
                #expect(!advertisements.isEmpty && advertisements.allSatisfy { $0.localName == nil })
                #expect(!responses.isEmpty && responses.allSatisfy { $0.localName == "Interop-Scan" })
            }
        }

        @Test(
            "connects, exchanges MTU 247 and discovers every service, characteristic with its properties and descriptor"
        )
        func discovery() async throws {
            try await withInteropScope { scope in
                let stage = try await PeripheralStage.start(in: scope, name: "Interop-Discovery")
                let connection = try await stage.central.connect(to: stage.address, timeout: .seconds(5))
                #expect(connection.peer == stage.address)
                #expect(await connection.mtu == ATT.defaultMTU)
                #expect(try await connection.exchangeMTU(preferred: 247) == 247)
                #expect(await connection.mtu == 247)
                let mtu = try await stage.peripheral.event { $0.event == "mtu" }
                #expect(mtu.mtu == 247)

                let services = try await connection.discoverPrimaryServices(nil)
                // Bumble's GAP and GATT services, then the Interop Test service.
                #expect(services.map(\.uuid) == [BluetoothUUID(0x1800), BluetoothUUID(0x1801), PeerProfile.service])
                let profile = try await DiscoveredProfile.discover(on: connection)
                #expect(services.last == profile.service)

                let expected: [(String, BluetoothUUID, GATT.CharacteristicProperties)] = [
                    ("short_read", PeerProfile.shortRead, .read),
                    ("long_read", PeerProfile.longRead, .read),
                    ("echo", PeerProfile.echo, [.read, .write]),
                    ("sink", PeerProfile.sink, .writeWithoutResponse),
                    ("sink_status", PeerProfile.sinkStatus, .read),
                    ("notify_source", PeerProfile.notifySource, .notify),
                    ("indicate_source", PeerProfile.indicateSource, .indicate),
                    ("read_only", PeerProfile.readOnly, .read),
                    ("write_only", PeerProfile.writeOnly, .write),
                    ("read_error", PeerProfile.readError, .read),
                    ("command", PeerProfile.command, .write),
                    ("counters", PeerProfile.counters, .read),
                ]
                #expect(profile.characteristics.map(\.uuid) == expected.map(\.1))
                for (role, uuid, properties) in expected {
                    let characteristic = try profile.characteristic(uuid)
                    #expect(characteristic.properties == properties, "\(role)")
                    #expect(characteristic.valueHandle == (try stage.handle(role)), "\(role)")
                    #expect(characteristic.declarationHandle + 1 == characteristic.valueHandle, "\(role)")
                    #expect(profile.service.handles.contains(characteristic.endHandle), "\(role)")
                }

                // Descriptors: the User Description of short_read, a CCCD on each pushing characteristic, no other.
                let userDescription = GATT.AttributeType.characteristicUserDescription
                let cccd = GATT.AttributeType.clientCharacteristicConfiguration
                #expect(
                    profile.descriptors.mapValues { $0.map(\.uuid) } == [
                        try profile.handle(PeerProfile.shortRead): [userDescription],
                        try profile.handle(PeerProfile.notifySource): [cccd],
                        try profile.handle(PeerProfile.indicateSource): [cccd],
                    ])
                let description = try #require(profile.descriptors[try profile.handle(PeerProfile.shortRead)]?.first)
                #expect(description.handle == (try stage.handle("user_description")))
                #expect(try await connection.read(description.handle) == PeerProfile.userDescription)

                let counters = try await connection.counters(at: try profile.handle(PeerProfile.counters))
                #expect(counters.refusedReads == 0, "blerig read something that is not readable")
                await connection.disconnect()
                #expect(await connection.disconnection() == .localHostTerminated)
                let gone = try await stage.peripheral.event { $0.event == "disconnected" }
                #expect(gone.reason == Int(HCIErrorCode.remoteUserTerminated.rawValue))
                #expect(stage.host.stack.links.isEmpty)
            }
        }

        @Test(
            "reads (a 512-byte value whole, by Read Blob), writes, long writes by Prepare/Execute, and writes without response in order"
        )
        func readsAndWrites() async throws {
            try await withInteropScope { scope in
                let stage = try await PeripheralStage.start(in: scope, name: "Interop-ReadWrite")
                let connection = try await stage.connect()
                let profile = try await DiscoveredProfile.discover(on: connection)
                let client = try #require(connection as? GATTClientConnection)

                #expect(
                    try await connection.read(try profile.handle(PeerProfile.shortRead)) == PeerProfile.shortReadValue)
                #expect(
                    try await connection.read(try profile.handle(PeerProfile.readOnly)) == PeerProfile.readOnlyValue)
                let sentBefore = client.statistics.requestsSent
                let long = try await connection.read(try profile.handle(PeerProfile.longRead))
                #expect(long.count == 512)
                #expect(long == PeerProfile.longReadValue)
                // 246 bytes per response at MTU 247: one Read Request and two Read Blob Requests.
                #expect(client.statistics.requestsSent - sentBefore == 3)

                let echo = try profile.handle(PeerProfile.echo)
                let short = Array("written by blerig".utf8)
                try await connection.write(short, to: echo)
                #expect(try await connection.read(echo) == short)
                let longValue = (0..<400).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
                try await connection.write(longValue, to: echo)
                #expect(try await connection.read(echo) == longValue)

                let sink = try profile.handle(PeerProfile.sink)
                let sunk = (0..<60).map { index in
                    (0..<(1 + index * 4 % 244)).map { UInt8(truncatingIfNeeded: index &* 13 &+ $0) }
                }
                for value in sunk { try await connection.writeWithoutResponse(value, to: sink) }
                // Write Commands get no answer: the read behind them on the same link proves they all arrived first.
                let status = try #require(
                    PeerProfile.SinkStatus(try await connection.read(try profile.handle(PeerProfile.sinkStatus))))
                #expect(status.count == UInt32(sunk.count))
                #expect(status.bytes == UInt32(sunk.map(\.count).reduce(0, +)))
                #expect(status.crc32 == crc32(sunk.flatMap { $0 }), "the values arrived changed or out of order")

                let counters = try await connection.counters(at: try profile.handle(PeerProfile.counters))
                #expect(counters.echoWrites == 2)
                // 400 bytes, 242 per Prepare Write Request at MTU 247: the long write procedure ran.
                #expect(counters.prepareWrites == 2)
                #expect(counters.refusedWrites == 0)
                #expect(counters.refusedReads == 0, "blerig read something that is not readable")
                await connection.disconnect()
            }
        }

        @Test("notifications arrive whole and in order; indications arrive in order and are each confirmed")
        func notificationsAndIndications() async throws {
            try await withInteropScope { scope in
                let stage = try await PeripheralStage.start(in: scope, name: "Interop-Push")
                let connection = try await stage.connect()
                let profile = try await DiscoveredProfile.discover(on: connection)
                let command = try profile.handle(PeerProfile.command)

                let notifySource = try profile.characteristic(PeerProfile.notifySource)
                let notified = try await connection.subscribe(
                    to: notifySource, cccd: try profile.cccd(PeerProfile.notifySource), indications: false)
                let subscribed = try await stage.peripheral.event { $0.characteristic == "notify_source" }
                #expect(subscribed.notify == true && subscribed.indicate == false)
                try await connection.write(PeerProfile.Command.notify(count: 40, size: 200), to: command)
                let notifications = await notified.first(40, within: .seconds(10))
                #expect(notifications.count == 40)
                #expect(
                    notifications.map(\.value) == (0..<40).map { PeerProfile.notification(sequence: $0, size: 200) })
                #expect(notifications.allSatisfy { $0.kind == .notification && $0.handle == notifySource.valueHandle })

                let indicateSource = try profile.characteristic(PeerProfile.indicateSource)
                let indicated = try await connection.subscribe(
                    to: indicateSource, cccd: try profile.cccd(PeerProfile.indicateSource), indications: true)
                let subscribedToo = try await stage.peripheral.event { $0.characteristic == "indicate_source" }
                #expect(subscribedToo.indicate == true && subscribedToo.notify == false)
                try await connection.write(PeerProfile.Command.indicate(count: 6, size: 30), to: command)
                let indications = await indicated.first(6, within: .seconds(10))
                #expect(indications.map(\.value) == (0..<6).map { PeerProfile.notification(sequence: $0, size: 30) })
                #expect(indications.allSatisfy { $0.kind == .indication && $0.handle == indicateSource.valueHandle })

                // Bumble counts an indication when its confirmation arrives; the last one may still be on its way.
                let countersHandle = try profile.handle(PeerProfile.counters)
                var counters = try await connection.counters(at: countersHandle)
                let clock = ContinuousClock()
                let deadline = clock.now.advanced(by: .seconds(2))
                while counters.indicationsConfirmed < 6, clock.now < deadline {
                    try await clock.sleep(for: .milliseconds(20))
                    counters = try await connection.counters(at: countersHandle)
                }
                #expect(counters.indicationsConfirmed == 6)
                #expect(counters.notificationsSent == 40)
                #expect(counters.refusedReads == 0, "blerig read something that is not readable")
                await connection.disconnect()
            }
        }

        @Test(
            "ATT errors come back as GATTError.att with the peripheral's code: 0x80 from read_error, 0x03 for a write to read_only"
        )
        func attErrors() async throws {
            try await withInteropScope { scope in
                let stage = try await PeripheralStage.start(in: scope, name: "Interop-Errors")
                let connection = try await stage.connect()
                let profile = try await DiscoveredProfile.discover(on: connection)

                let readError = try profile.handle(PeerProfile.readError)
                await #expect(
                    throws: GATTError.att(ATT.ErrorCode(rawValue: 0x80), request: .readRequest, handle: readError)
                ) {
                    try await connection.read(readError)
                }
                let readOnly = try profile.handle(PeerProfile.readOnly)
                await #expect(throws: GATTError.att(.writeNotPermitted, request: .writeRequest, handle: readOnly)) {
                    try await connection.write([1, 2, 3], to: readOnly)
                }
                let command = try profile.handle(PeerProfile.command)
                await #expect(
                    throws: GATTError.att(
                        ATT.ErrorCode(rawValue: PeerProfile.ATTError.unknownOpcode.rawValue), request: .writeRequest,
                        handle: command)
                ) {
                    try await connection.write([0x7F], to: command)
                }
                // A failed request leaves the bearer usable.
                #expect(try await connection.read(readOnly) == PeerProfile.readOnlyValue)
                let counters = try await connection.counters(at: try profile.handle(PeerProfile.counters))
                #expect(counters.refusedWrites == 1)
                #expect(counters.refusedReads == 0, "blerig read something that is not readable")
                await connection.disconnect()
                #expect(await connection.disconnection() == .localHostTerminated)
            }
        }

        @Test(
            "a disconnect by the peripheral ends the link with 0x13 and fails the operations in flight with .disconnected"
        )
        func peerInitiatedDisconnect() async throws {
            try await withInteropScope { scope in
                let stage = try await PeripheralStage.start(in: scope, name: "Interop-Disconnect")
                let connection = try await stage.connect()
                let profile = try await DiscoveredProfile.discover(on: connection)
                let notified = try await connection.subscribe(
                    to: try profile.characteristic(PeerProfile.notifySource),
                    cccd: try profile.cccd(PeerProfile.notifySource), indications: false)
                let longRead = try profile.handle(PeerProfile.longRead)

                // Readers that keep the bearer busy until the link drops under them.
                let readers = (0..<3).map { _ in
                    Task { () -> (reads: Int, error: GATTError?) in
                        var reads = 0
                        while true {
                            do {
                                guard try await connection.read(longRead) == PeerProfile.longReadValue else {
                                    return (reads, .invalidResponse("long_read read back wrong"))
                                }
                                reads += 1
                            } catch let error as GATTError {
                                return (reads, error)
                            } catch {
                                return (reads, .invalidResponse("not a GATTError: \(error)"))
                            }
                        }
                    }
                }
                try await Task.sleep(for: .milliseconds(100))
                try await connection.write(PeerProfile.Command.disconnect, to: try profile.handle(PeerProfile.command))
                #expect(await connection.disconnection() == .remoteUserTerminated)
                for reader in readers {
                    let (reads, error) = await reader.value
                    #expect(reads > 0, "the reader never completed a read before the link dropped")
                    let disconnected = if case .disconnected? = error { true } else { false }
                    #expect(
                        disconnected, "a read in flight when the link dropped failed with \(String(describing: error))")
                }
                // The subscription ends with the link, and so does every later operation.
                #expect(await notified.finishes(within: .seconds(2)))
                await #expect(throws: GATTError.disconnected(.remoteUserTerminated)) {
                    try await connection.read(longRead)
                }
                let seen = try await stage.peripheral.event { $0.event == "disconnected" }
                #expect(seen.reason == Int(HCIErrorCode.localHostTerminated.rawValue))
                #expect(stage.host.stack.links.isEmpty)
                #expect(stage.host.stack.failure == nil)
            }
        }

        @Test(
            "controller errors surface with their HCI status: a refused LE Create Connection, an address nobody advertises, refused advertising commands"
        )
        func controllerErrors() async throws {
            try await withInteropScope { scope in
                let rootcanal = try await scope.rootcanal()
                // 100 ms interval with a 100 ms supervision timeout: the timeout must exceed twice the interval.
                let badParameters = HCI.ConnectionParameters(intervalMin: 80, intervalMax: 80, supervisionTimeout: 10)
                #expect(badParameters.violation != nil)
                let host = try await scope.blerigHost(on: rootcanal, connectionParameters: badParameters)
                let nobody = DeviceAddress(0xC1_0B_0D_1E_5E_00, kind: .random)
                let clock = ContinuousClock()

                let refusedAt = clock.now
                await #expect(throws: CentralError.connectionFailed(nobody, reason: .invalidParameters)) {
                    _ = try await host.central.connect(to: nobody, timeout: .seconds(3))
                }
                #expect(refusedAt.duration(to: clock.now) < .seconds(1), "refused at once, not timed out")
                let refusal = try await host.events.waitFor { !$0.connectionFailures(to: nobody).isEmpty }
                #expect(refusal.connectionFailures(to: nobody) == [.invalidParameters])

                // The refusal left the host able to initiate again: with valid parameters, nobody answers.
                let central = HCICentral(stack: host.stack)
                let startedAt = clock.now
                await #expect(throws: CentralError.notFound(nobody, waited: .milliseconds(500))) {
                    _ = try await central.connect(to: nobody, timeout: .milliseconds(500))
                }
                let waited = startedAt.duration(to: clock.now)
                #expect(waited >= .milliseconds(500) && waited < .seconds(3))
                // The controller ended the cancelled attempt with LE Connection Complete, status 0x02 (observers
                // hear of it after the attempt itself).
                let failures = try await host.events.waitFor { $0.connectionFailures(to: nobody).count == 2 }
                #expect(failures.connectionFailures(to: nobody) == [.invalidParameters, .unknownConnectionIdentifier])

                // Commands no other event answers. This controller was driven with the extended scanning and
                // initiating commands, so it refuses the legacy advertising ones until it is reset (Core Vol 4
                // Part E §3.1.1): each with 0x0C Command Disallowed.
                #expect(host.stack.controller?.usesExtendedScanning == true)
                host.stack.advertise(AdvertisingData(localName: "Interop-Never"), interval: .milliseconds(100))
                let refused = try await Self.commandFailures(of: host, count: 5)
                #expect(
                    refused.map(\.opcode) == [
                        .leSetAdvertisingEnable, .leSetAdvertisingParameters, .leSetAdvertisingData,
                        .leSetScanResponseData, .leSetAdvertisingEnable,
                    ])
                #expect(refused.allSatisfy { $0.status == .commandDisallowed })
                #expect(host.stack.links.isEmpty)
                #expect(host.stack.failure == nil)

                // On a controller kept to the legacy commands, advertising every 20 s is refused as the spec says
                // for an interval beyond what the controller supports (10.24 s here): 0x11.
                let legacy = try await scope.blerigHost(
                    on: rootcanal, configuration: HCIHost.Configuration(scanning: .legacy))
                legacy.stack.advertise(AdvertisingData(localName: "Interop-Never"), interval: .seconds(20))
                let invalid = try #require(try await Self.commandFailures(of: legacy, count: 1).first)
                #expect(invalid.opcode == .leSetAdvertisingParameters)
                #expect(invalid.status == .unsupportedFeature)
                #expect(legacy.stack.failure == nil)
            }
        }

        /// Waits until the host has reported `count` failed commands (at most 2 s) and returns them.
        static func commandFailures(
            of host: BlerigHost, count: Int
        ) async throws -> [(opcode: HCI.Opcode, status: HCIErrorCode)] {
            try await host.events.waitFor { $0.commandFailures.count >= count }.commandFailures
        }
    }
}
