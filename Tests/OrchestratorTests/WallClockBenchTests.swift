import BLECore
import BenchCore
import DeviceProfiles
import Foundation
import Reports
import Synchronization
import Testing

@testable import Orchestrator

/// The campaign on a bench that is not the virtual farm: the wall clock, no simulation, a board whose radio side
/// is BLECore's GATT server over an in-memory link, and a fake power switch and console (labgrid's fake drivers).
/// The same campaign code must run here unchanged; the HCI host bench will be this with a real radio.
@Suite("Campaign on a wall-clock bench")
struct WallClockBenchTests {
    /// A Nano 33 BLE Sense as far as the central can tell: it boots when powered (BOOT and READY on its console
    /// after 30 ms), advertises every 20 ms while nobody is connected, and serves the profile's GATT table.
    final class FakeNano: @unchecked Sendable {
        // @unchecked Sendable: every mutable field is behind `state`.
        struct State {
            var powered = false
            var booted = false
            var server: GATTServer?
            var connection: GATTClientConnection?
            var console: (@Sendable (ConsoleEntry) -> Void)?
            var boots = 0
            var powerSwitches: [Bool] = []
            var tracker = BootTracker()
            /// How many more connection attempts the board ignores (a board that went deaf), for retry tests.
            var ignoredConnections = 0
            /// Lines typed on its console.
            var typed: [String] = []
        }

        let address: DeviceAddress
        let clock: WallClock
        let state = Mutex(State())

        init(address: DeviceAddress, clock: WallClock) {
            self.address = address
            self.clock = clock
        }

        var advertising: Bool { state.withLock { $0.booted && $0.connection == nil } }

        static let table: [GATTServer.Service] = [
            .init(
                Nano33BLESense.ledService,
                characteristics: [
                    .init(Nano33BLESense.ledStatus, properties: [.write], value: .stored([0]), length: .fixed(1))
                ]),
            .init(
                Nano33BLESense.sensorService,
                characteristics: [
                    .init(
                        Nano33BLESense.temperature, properties: [.read, .notify], value: .stored([22]),
                        length: .fixed(1))
                ]),
        ]

        func print(_ text: String) {
            let (handler, entry) = state.withLock { state in
                (state.console, state.tracker.entry(text, at: clock.now))
            }
            handler?(entry)
        }

        func power(_ on: Bool) {
            let boot = state.withLock { state -> Int? in
                state.powerSwitches.append(on)
                guard on != state.powered else { return nil }
                state.powered = on
                state.booted = false
                state.server = nil
                if !on, let connection = state.connection {
                    state.connection = nil
                    connection.linkDown(.connectionTimeout)
                }
                guard on else { return nil }
                state.boots += 1
                return state.boots
            }
            guard let boot else { return }
            print("BOOT fw=1.0.0 reset=POWERON boot_id=0000000\(boot)")
            Task {
                try await clock.sleep(for: .milliseconds(30))
                let ready = state.withLock { state -> Bool in
                    guard state.powered, state.boots == boot else { return false }
                    state.server = try? GATTServer(services: Self.table)
                    state.booted = true
                    return true
                }
                if ready { print("READY name=\(Nano33BLESense.advertisedName) addr=\(address)") }
            }
        }
    }

    /// The link between the central's GATT client and the board's GATT server.
    struct Link: ATTBearer, LinkControl {
        let board: FakeNano
        static let id: GATTServer.ConnectionID = 1

        func send(_ pdu: [UInt8]) async throws(GATTError) {
            guard
                let (actions, connection) = board.state.withLock({
                    state -> ([GATTServer.Action], GATTClientConnection)? in
                    guard let connection = state.connection, state.server != nil else { return nil }
                    return (state.server!.receive(pdu, from: Self.id), connection)
                })
            else { throw .disconnected(.connectionTimeout) }
            for case .send(let response, _) in actions { connection.receive(response) }
        }

        func sendImmediately(_ pdu: [UInt8]) { Task { try? await send(pdu) } }

        func disconnect() async {
            let connection = board.state.withLock { state in
                defer { state.connection = nil }
                state.server?.disconnect(Self.id)
                return state.connection
            }
            connection?.linkDown(.localHostTerminated)
        }
    }

    struct FakeCentral: Central {
        let boards: [FakeNano]
        let wall: WallClock
        var clock: any RigClock { wall }

        func scan(_ filter: ScanFilter) -> AsyncStream<Advertisement> {
            let (stream, continuation) = AsyncStream.makeStream(of: Advertisement.self)
            let task = Task {
                var seen: Set<DeviceAddress> = []
                while !Task.isCancelled {
                    for board in boards where board.advertising {
                        let data = AdvertisingData(
                            structures: AdvertisingData(
                                flags: .generalDiscoverableLEOnly, serviceUUIDs: [Nano33BLESense.ledService]
                            ).structures + AdvertisingData(localName: Nano33BLESense.advertisedName).structures)
                        guard filter.accepts(data, from: board.address) else { continue }
                        if filter.deduplicate, !seen.insert(board.address).inserted { continue }
                        continuation.yield(
                            Advertisement(
                                address: board.address, data: data, rssi: -50, connectable: true, received: wall.now))
                    }
                    try? await Task.sleep(for: .milliseconds(20))
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
            return stream
        }

        func connect(to address: DeviceAddress, timeout: Duration) async throws(CentralError) -> any GATTConnection {
            guard let board = boards.first(where: { $0.address == address }) else {
                throw .notFound(address, waited: timeout)
            }
            let deadline = wall.now.advanced(by: timeout)
            let deaf = board.state.withLock { state in
                defer { state.ignoredConnections = max(0, state.ignoredConnections - 1) }
                return state.ignoredConnections > 0
            }
            if deaf { throw .notFound(address, waited: .zero) }
            while !board.advertising {
                guard wall.now < deadline else { throw .notFound(address, waited: timeout) }
                do { try await Task.sleep(for: .milliseconds(5)) } catch { throw .cancelled }
            }
            let link = Link(board: board)
            let connection = GATTClientConnection(peer: address, bearer: link, link: link, clock: wall)
            board.state.withLock { state in
                state.connection = connection
                state.server?.connect(Link.id)
            }
            return connection
        }
    }

    struct FakeRadio: BenchRadio {
        let central: any Central
        var id: String { "radio" }
        var kind: String { "fake" }
        var maxLinks: Int { 1 }
        var counters: [RadioCounter] { [] }
        func capture(into sink: any CaptureSink) {}
    }

    struct FakePower: PowerSwitch {
        let board: FakeNano
        var description: String { "fake hub port" }
        func on() async throws(BenchError) { board.power(true) }
        func off() async throws(BenchError) { board.power(false) }
    }

    struct FakeConsole: BoardConsole {
        let board: FakeNano
        var description: String { "fake console" }
        func attach(_ handler: @escaping @Sendable (ConsoleEntry) -> Void) {
            board.state.withLock { $0.console = handler }
        }
        func send(_ line: String) async throws(BenchError) { board.state.withLock { $0.typed.append(line) } }
    }

    struct FakeBench: Bench {
        let clock: any RigClock
        let unixTimeAtOrigin: Duration
        let radios: [any BenchRadio]
        let boards: [BenchBoard]
        let health: BenchHealth
    }

    /// Opens the fake bench on the wall clock: no simulation, no executor of its own.
    final class FakeLauncher: BenchLauncher, BenchFactory {
        let nanos: Mutex<[FakeNano]> = Mutex([])
        /// Where the test makes a part of the bench fail.
        let health = BenchHealth()
        /// The bench's clock, once it is open.
        let clock = Mutex<WallClock?>(nil)
        var summary: String { "fake bench" }

        func launcher(for rig: RigConfig, seed: UInt64) throws(CampaignError) -> any BenchLauncher { self }

        func withBench<T: Sendable>(
            _ body: @escaping @Sendable (any Bench) async throws -> T
        ) async throws -> BenchOutcome<T> {
            let clock = WallClock()
            self.clock.withLock { $0 = clock }
            let boards = (1...2).map { FakeNano(address: DeviceAddress(0x84CC_A800_0000 + UInt64($0)), clock: clock) }
            nanos.withLock { $0 = boards }
            let bench = FakeBench(
                clock: clock, unixTimeAtOrigin: .seconds(Int64(Date().timeIntervalSince1970)),
                radios: [FakeRadio(central: FakeCentral(boards: boards, wall: clock))],
                boards: boards.enumerated().map { index, board in
                    BenchBoard(
                        id: "nano-\(index + 1)",
                        match: BoardMatch(address: board.address, name: Nano33BLESense.advertisedName),
                        power: FakePower(board: board), console: FakeConsole(board: board),
                        identity: [("serial", "/dev/fake\(index)")])
                }, health: health)
            return BenchOutcome(value: try await body(bench))
        }
    }

    static let rig = """
        rig: wall-clock
        radio: {kind: hci, transport: "tcp:127.0.0.1:9"}
        boards:
          - {id: nano-1, profile: nano33-ble-sense, match: {address: 84:CC:A8:00:00:01}}
          - {id: nano-2, profile: nano33-ble-sense, match: {address: 84:CC:A8:00:00:02}}
        suites: [discovery, {handshake: {connections: 2}}, {commands: {repetitions: 2}}]
        """

    @Test("the same campaign runs on the wall clock: boards brought up, queued for the one link, tested and left off")
    func campaignOnTheWallClock() async throws {
        let launcher = FakeLauncher()
        let path = try RigTesting.temporaryFile(Array(Self.rig.utf8))
        let campaign = try Campaign(rigFile: path, benches: launcher)
        let started = Date()
        let result = try await campaign.run(RunOptions(outputRoot: CampaignTests.outputRoot()))
        #expect(result.status == .passed, "\(result.result.failingCheckLines())")
        #expect(result.result.counts.passed == 2 * 5)
        // Bench time is wall time here: the run took about as long as it says it covered.
        #expect(result.benchTime.seconds <= Date().timeIntervalSince(started))
        #expect(result.benchTime > .milliseconds(100))
        // A hardware run carries no seed in its id or its log.
        #expect(!result.runID.contains("-s"))
        #expect(result.result.run?.seed == nil)
        // One link for two boards: one of them waited.
        let waits = result.result.boards.compactMap { board in
            board.measurements.first { $0.metric == "schedule.link_wait_ms" }?.value
        }
        // (On a real clock even a link granted at once took a few microseconds.)
        let sorted = waits.sorted()
        #expect(sorted.count == 2)
        #expect(sorted.first.map { $0 < 50 } == true, "\(sorted)")
        #expect(sorted.last.map { $0 > 200 } == true, "\(sorted)")
        for board in result.result.boards {
            #expect(board.finalState == "off")
            #expect(
                board.logs.contains { $0.source == "console" && $0.message.hasPrefix("READY name=iOSArduinoBoard") })
        }
        for nano in launcher.nanos.withLock({ $0 }) {
            #expect(nano.state.withLock { $0.powerSwitches } == [false, true, false])
        }
        try XMLSchema.expectValid("\(result.directory)/junit.xml")
    }

    @Test("--timeout on the wall clock stops a run that would go on, and every report is written")
    func wallTimeout() async throws {
        let rig = Self.rig.replacingOccurrences(
            of: "suites: [discovery, {handshake: {connections: 2}}, {commands: {repetitions: 2}}]",
            with: "suites: [discovery, {handshake: {connections: 100000}}]")
        let path = try RigTesting.temporaryFile(Array(rig.utf8))
        let campaign = try Campaign(rigFile: path, benches: FakeLauncher())
        let result = try await campaign.run(RunOptions(outputRoot: CampaignTests.outputRoot(), timeout: .seconds(1)))
        #expect(result.status == .interrupted)
        #expect(result.interruption == .timeout(.seconds(1)))
        // A hundred thousand handshakes would take hours; the run stopped soon after its second.
        #expect(result.benchTime < .seconds(60))
        let outcomes = result.result.boards.flatMap(\.tests).map(\.outcome)
        #expect(outcomes.contains(.interrupted(reason: "--timeout 1 s reached")))
        try XMLSchema.expectValid("\(result.directory)/junit.xml")
    }
}
