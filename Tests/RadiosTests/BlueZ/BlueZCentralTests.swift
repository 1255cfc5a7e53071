import BLECore
import BenchCore
import Glibc
import Synchronization
import Testing

@testable import Radios

private let board = DeviceAddress(0xE4_0A_C4_12_1A_2B, kind: .random)
private let other = DeviceAddress(0x24_0A_C4_99_00_01, kind: .public)
private let battery = BluetoothUUID(0x180F)
private let level = BluetoothUUID(0x2A19)
private let table: [GATTServer.Service] = [
    .init(battery, characteristics: [.init(level, properties: [.read, .write], value: .stored([87]), length: .fixed(1))])
]

/// Opens a central on the fake kernel; adapter listing (for the user-channel check and for telling a removed
/// adapter from one switched off) sees `listed`, none unless told, and HCIGETCONNLIST the fake kernel's links.
func openCentral(
    _ kernel: FakeBlueZKernel, parameters: HCI.ConnectionParameters? = nil, listed: [HCIDeviceInfo] = [],
    hci: FakeBluetoothSockets? = nil
) async throws -> BlueZCentral {
    try await BlueZCentral.open(
        adapter: 0, sockets: kernel, hciSockets: hci ?? hciSockets(for: kernel, listed: listed),
        connectionParameters: parameters, security: .medium)
}

/// The raw HCI sockets beside `kernel`: its adapters as `listed`, its links as HCIGETCONNLIST gives them.
func hciSockets(
    for kernel: FakeBlueZKernel, listed: [HCIDeviceInfo] = [], failing: [FakeBluetoothSockets.Call: Errno] = [:]
) -> FakeBluetoothSockets {
    FakeBluetoothSockets(failing: failing, adapters: listed) { (adapter, peer) throws(Errno) -> Bool in
        try kernel.linkExists(adapter: adapter, peer: peer)
    }
}

/// Waits (up to 2 s of wall time) until `condition` holds.
func eventually(_ condition: () -> Bool) async -> Bool {
    for _ in 0..<400 {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return condition()
}

/// Among the descriptor tests (``TransportIO``, one at a time): the fake kernel's socket pairs would look like
/// leaks to the others' checks.
extension TransportIO {
    @Suite("BlueZ's kernel path: mgmt and ATT sockets against a fake kernel")
    struct BlueZCentralTests {
        @Test("opening reads the index list and the adapter, and powers it on when it is off")
        func opensAndPowersOn() async throws {
            let kernel = FakeBlueZKernel(adapter: .init(powered: false))
            let central = try await openCentral(kernel)
            #expect(central.isPoweredOn)
            #expect(central.adapterAddress == 0x00_1A_7D_DA_71_13)
            #expect(
                kernel.commands == [
                    "Read Controller Index List (0x0003) - []", "Read Controller Information (0x0004) hci0 []",
                    "Set Powered (0x0005) hci0 [1]",
                ])
            #expect(kernel.log == ["socket(control)", "bind(control)"])
            await central.close()
            #expect(kernel.openDescriptors == 0)
        }

        @Test("an adapter that is powered is left as it is")
        func poweredIsLeftAlone() async throws {
            let kernel = FakeBlueZKernel()
            let central = try await openCentral(kernel)
            #expect(!kernel.commands.contains { $0.hasPrefix("Set Powered") })
            await central.close()
        }

        @Test("a missing adapter names the others; a refused power-on asks for CAP_NET_ADMIN; no LE says so")
        func openFailures() async throws {
            await #expect {
                _ = try await BlueZCentral.open(
                    adapter: 3, sockets: FakeBlueZKernel(otherIndexes: [1]), hciSockets: FakeBluetoothSockets())
            } throws: { error in
                "\(error)".contains("adapter hci3 does not exist; the adapters here are hci0, hci1")
            }
            await #expect {
                _ = try await openCentral(FakeBlueZKernel(adapter: .init(powered: false), refusing: [.setPowered: .permissionDenied]))
            } throws: { error in
                let error = error as? HCITransportError
                return error?.code == .permission && error?.message.contains("refused Set Powered (0x0005) on hci0") == true
                    && error?.fix?.contains("setcap cap_net_admin,cap_net_raw+ep") == true
            }
            await #expect {
                _ = try await openCentral(FakeBlueZKernel(adapter: .init(supported: [.powered, .bredr])))
            } throws: { error in
                "\(error)".contains("hci0 does not support Bluetooth Low Energy")
            }
            await #expect {
                _ = try await openCentral(FakeBlueZKernel(failing: [.controlSocket: Errno(EAFNOSUPPORT)]))
            } throws: { error in
                "\(error)".contains("kernel has no Bluetooth") && "\(error)".contains("modprobe bluetooth")
            }
        }

        @Test("scanning starts LE discovery, reports Device Found with RSSI and AD data, once per address, and stops")
        func scans() async throws {
            let kernel = FakeBlueZKernel()
            let central = try await openCentral(kernel)
            var found: [Advertisement] = []
            do {
                let stream = central.scan(ScanFilter(namePrefixes: ["ESP"]))
                #expect(await eventually { kernel.commands.contains("Start Discovery (0x0023) hci0 [6]") })
                let named = Mgmt.DeviceFound(address: .init(board), rssi: -61, eir: [5, 0x09] + Array("ESP1".utf8))
                kernel.emit(.deviceFound(named))
                kernel.emit(.deviceFound(named))
                kernel.emit(
                    .deviceFound(.init(address: .init(other), rssi: -40, flags: .notConnectable, eir: [3, 0x09, 0x48, 0x52])))
                kernel.emit(.deviceFound(.init(address: .init(other), rssi: -41, eir: [5, 0x09] + Array("ESP2".utf8))))
                for await advertisement in stream {
                    found.append(advertisement)
                    if found.count == 2 { break }
                }
            }
            #expect(found.map(\.address) == [board, other])
            #expect(found.map(\.rssi) == [-61, -41])
            #expect(found.map(\.data.localName) == ["ESP1", "ESP2"])
            #expect(found.map(\.connectable) == [true, true])
            #expect(await eventually { kernel.commands.contains("Stop Discovery (0x0024) hci0 [6]") })
            await central.close()
        }

        @Test("an advertisement and its scan response, sent apart as Linux 6.1 does with extended reports, are one report")
        func mergesScanResponses() async throws {
            let kernel = FakeBlueZKernel()
            let central = try await openCentral(kernel)
            let stream = central.scan(ScanFilter(namePrefixes: ["ESP"]))
            #expect(await eventually { kernel.commands.contains { $0.hasPrefix("Start Discovery") } })
            let manufacturer: [UInt8] = [8, 0xFF, 0xFF, 0xFF, 0x01, 0x04, 0x02, 0x00, 0x02]
            kernel.emit(.deviceFound(.init(address: .init(board), rssi: -50, eir: manufacturer)))
            kernel.emit(
                .deviceFound(
                    .init(address: .init(board), rssi: -51, flags: .scanResponse, eir: [5, 0x09] + Array("ESP1".utf8))))
            var iterator = stream.makeAsyncIterator()
            let report = try #require(await iterator.next())
            #expect(report.data.localName == "ESP1")
            let manufacturerData = report.data.manufacturerData(for: CompanyIdentifier(rawValue: 0xFFFF))
            #expect(manufacturerData == [0x01, 0x04, 0x02, 0x00, 0x02])
            await central.close()
        }

        @Test("discovery is started again when the kernel ends it; another program's discovery is listened to")
        func discoveryRestartsAndShares() async throws {
            let kernel = FakeBlueZKernel(refusing: [.startDiscovery: .busy])
            let central = try await openCentral(kernel)
            let stream = central.scan(ScanFilter())
            #expect(await eventually { kernel.commands.count == 3 })
            // bluetoothd is discovering: its results come to every mgmt socket.
            kernel.emit(.deviceFound(.init(address: .init(board), rssi: -50, eir: [])))
            var iterator = stream.makeAsyncIterator()
            #expect(await iterator.next()?.address == board)
            // Its discovery ends: blerig starts one of its own.
            kernel.emit(.discovering(.init(types: .le, discovering: false)))
            #expect(await eventually { kernel.commands.filter { $0.hasPrefix("Start Discovery") }.count == 2 })
            await central.close()
        }

        @Test("connecting opens an ATT socket the btgatt-client way, and BLECore's GATT client runs over it")
        func connectsAndReads() async throws {
            let kernel = FakeBlueZKernel()
            let parameters = HCI.ConnectionParameters(interval: .milliseconds(15), supervisionTimeout: .seconds(4))
            let central = try await openCentral(kernel, parameters: parameters)
            let connecting = Task { try await central.connect(to: board, timeout: .seconds(5)) }
            #expect(await eventually { kernel.board(board) != nil })
            kernel.serve(board, try GATTServer(services: table))
            let connection = try await connecting.value
            #expect(
                kernel.log == [
                    "socket(control)", "bind(control)", "socket(l2cap)", "bind(att 00:1A:7D:DA:71:13)", "security 2",
                    "rcvmtu 517", "connect E4:0A:C4:12:1A:2B/random", "SO_ERROR", "mtus",
                ])
            #expect(kernel.commands.contains { $0.hasPrefix("Load Connection Parameters (0x0035) hci0 [1 0 2b 1a 12 c4 a e4 2 c 0 c 0 0 0 90 1]") })
            #expect(try await connection.exchangeMTU(preferred: 247) == 247)
            let services = try await connection.discoverPrimaryServices(nil)
            #expect(services.map(\.uuid) == [battery])
            let characteristics = try await connection.discoverCharacteristics(of: services[0])
            #expect(try await connection.read(characteristics[0].valueHandle) == [87])
            try await connection.write([42], to: characteristics[0].valueHandle)
            #expect(try await connection.read(characteristics[0].valueHandle) == [42])
            await connection.disconnect()
            // The socket went while the link was up (Linux 6.1.192 BUGs on a socket closed after its link).
            #expect(kernel.closedWhileLinkUp(board) == true)
            // blerig closed it: 0x16 here, at once, though the kernel sends the asking socket no Device Disconnected.
            #expect(await connection.disconnection() == .localHostTerminated)
            #expect(kernel.commands.last == "Disconnect (0x0014) hci0 [2b 1a 12 c4 a e4 2]")
            await central.close()
            #expect(await eventually { kernel.openDescriptors == 0 })
        }

        @Test(
            "a refused discovery on an adapter the kernel no longer lists is its removal, reported before the scans end",
            arguments: [true, false])
        func refusedDiscoveryOnAGoneAdapter(listed: Bool) async throws {
            let kernel = FakeBlueZKernel(refusing: [.startDiscovery: .invalidIndex])
            let central = try await openCentral(kernel, listed: listed ? [.usb(0)] : [])
            let failure = Mutex<String?>(nil)
            central.whenAdapterFails { why in failure.withLock { $0 = why } }
            for await _ in central.scan(ScanFilter()) {}
            // The scan ended; by then the bench has heard why, when the adapter is gone.
            let why = failure.withLock { $0 }
            if listed {
                #expect(why == nil, "an adapter still listed was reported gone: \(why ?? "")")
            } else {
                #expect(why?.contains("hci0 was removed under the run") == true, "\(why ?? "nothing")")
            }
            await central.close()
        }

        @Test("disconnecting closes the socket while the link is up, then waits until the kernel has no link")
        func disconnectWaitsForTheLinkToGo() async throws {
            let kernel = FakeBlueZKernel(linkDownAfterReply: .milliseconds(300))
            let hci = hciSockets(for: kernel)
            let central = try await openCentral(kernel, hci: hci)
            let connecting = Task { try await central.connect(to: board, timeout: .seconds(5)) }
            #expect(await eventually { kernel.board(board) != nil })
            let connection = try await connecting.value
            await connection.disconnect()
            let returned = ContinuousClock.now
            // Down before blerig says it is closed: a connect to the board now makes a new link.
            let down = try #require(kernel.linkDownAt(board), "disconnect returned before the link went down")
            #expect(down <= returned)
            #expect(kernel.closedWhileLinkUp(board) == true, "the socket outlived its link")
            #expect(hci.log == ["socket", "close"], "one raw HCI socket for the whole wait: \(hci.log)")
            #expect(await connection.disconnection() == .localHostTerminated)
            await central.close()
            #expect(await eventually { kernel.openDescriptors == 0 })
        }

        @Test("a kernel that cannot be asked for its links (no raw HCI socket) does not hold a disconnect up")
        func disconnectWithoutTheLinkList() async throws {
            let kernel = FakeBlueZKernel(linkDownAfterReply: .seconds(1))
            let central = try await openCentral(kernel, hci: hciSockets(for: kernel, failing: [.socket: Errno(EPERM)]))
            let connecting = Task { try await central.connect(to: board, timeout: .seconds(5)) }
            #expect(await eventually { kernel.board(board) != nil })
            let connection = try await connecting.value
            let started = ContinuousClock.now
            await connection.disconnect()
            #expect(ContinuousClock.now - started < .milliseconds(900), "it waited for a link it cannot see")
            #expect(kernel.closedWhileLinkUp(board) == true)
            #expect(await connection.disconnection() == .localHostTerminated)
            await central.close()
            #expect(await eventually { kernel.openDescriptors == 0 })
        }

        @Test(
            "a link the peer or the air ends goes down with mgmt's reason, or the socket's errno when mgmt is silent",
            arguments: [
                (Mgmt.DeviceDisconnected.Reason?.some(.remote), HCIErrorCode.remoteUserTerminated),
                (.connectionTimeout, .connectionTimeout),
                (nil, .unspecifiedError),
            ])
        func linkDrops(reason: Mgmt.DeviceDisconnected.Reason?, expected: HCIErrorCode) async throws {
            let kernel = FakeBlueZKernel()
            let central = try await openCentral(kernel)
            let connecting = Task { try await central.connect(to: board, timeout: .seconds(5)) }
            #expect(await eventually { kernel.board(board) != nil })
            let connection = try await connecting.value
            kernel.dropLink(board, reason: reason)
            #expect(await connection.disconnection() == expected)
            await #expect(throws: GATTError.self) { _ = try await connection.read(3) }
            #expect(await eventually { central.linkedPeers.isEmpty })
            await central.close()
        }

        @Test("several boards are linked at once, each on its own socket")
        func severalLinks() async throws {
            let kernel = FakeBlueZKernel()
            let central = try await openCentral(kernel)
            async let first = central.connect(to: board, timeout: .seconds(5))
            async let second = central.connect(to: other, timeout: .seconds(5))
            let links = try await [first, second]
            kernel.serve(board, try GATTServer(services: table))
            kernel.serve(other, try GATTServer(services: table))
            #expect(central.linkedPeers == [other, board].sorted())
            for link in links { #expect(try await link.discoverPrimaryServices(nil).map(\.uuid) == [battery]) }
            #expect(kernel.attSockets.map(\.peer) .compactMap { $0 }.sorted() == [board, other].sorted())
            for link in links { await link.disconnect() }
            await central.close()
        }

        @Test(
            "a connect that fails says why: not found, connection failed, or bluetoothd holding the channel")
        func connectFailures() async throws {
            let kernel = FakeBlueZKernel(connect: { peer in
                peer == board ? .hangs : .fails(Errno(ECONNREFUSED))
            })
            let central = try await openCentral(kernel)
            await #expect(throws: CentralError.notFound(board, waited: .milliseconds(200))) {
                _ = try await central.connect(to: board, timeout: .milliseconds(200))
            }
            kernel.emit(.connectFailed(.init(address: .init(other), status: .connectFailed)))
            try await Task.sleep(for: .milliseconds(50))
            await #expect(throws: CentralError.connectionFailed(other, reason: .connectionFailedToBeEstablished)) {
                _ = try await central.connect(to: other, timeout: .seconds(2))
            }
            #expect(await eventually { kernel.openDescriptors == 1 })
            await central.close()

            let busy = FakeBlueZKernel(failing: [.connect: Errno(EBUSY)])
            let second = try await openCentral(busy)
            await #expect {
                _ = try await second.connect(to: board, timeout: .seconds(1))
            } throws: { error in
                guard case let .radioUnavailable(why) = error as? CentralError else { return false }
                return why.contains("already holds the ATT channel") && why.contains("bluetoothctl disconnect E4:0A:C4:12:1A:2B")
            }
            #expect(busy.openDescriptors == 1)
            await second.close()
        }

        @Test("switching the radio off through mgmt ends the links and the scans; on again, it scans")
        func power() async throws {
            let kernel = FakeBlueZKernel()
            let central = try await openCentral(kernel)
            let connecting = Task { try await central.connect(to: board, timeout: .seconds(5)) }
            #expect(await eventually { kernel.board(board) != nil })
            let connection = try await connecting.value
            let stream = central.scan(ScanFilter())
            try await central.setPowered(false)
            #expect(kernel.closedWhileLinkUp(board) == true, "the socket outlived its link")
            #expect(!kernel.isPowered)
            #expect(!central.isPoweredOn)
            var iterator = stream.makeAsyncIterator()
            #expect(await iterator.next() == nil)
            _ = await connection.disconnection()
            await #expect(throws: CentralError.radioUnavailable("hci0 is powered off")) {
                _ = try await central.connect(to: board, timeout: .seconds(1))
            }
            try await central.setPowered(true)
            #expect(central.isPoweredOn)
            await central.close()
        }
    }
}
