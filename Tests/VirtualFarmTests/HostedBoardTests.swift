import BLECore
import BenchCore
import DeviceProfiles
import Testing

@testable import VirtualFarm

/// A host's radio as the board sees it: it records every advertising set the board asks for, in order.
final class RecordingBoardRadio: BoardRadio {
    let defaultAdvertisingInterval: Duration
    let address: DeviceAddress
    private(set) var sets: [AdvertisingState?] = []

    init(address: DeviceAddress, defaultAdvertisingInterval: Duration = .milliseconds(200)) {
        self.address = address
        self.defaultAdvertisingInterval = defaultAdvertisingInterval
    }

    /// What the controller advertises now.
    var current: AdvertisingState? { sets.last ?? nil }

    func setAdvertising(_ set: AdvertisingState?, of address: DeviceAddress) {
        #expect(address == self.address, "a board at \(address) advertised on the radio of \(self.address)")
        sets.append(set)
    }
}

/// One connection as a host's controller would carry it: PDUs the test delivers go to the board's handler at once,
/// and what the board sends is kept. After `vanish()` the handlers stay reachable, as a PDU an I/O thread posted
/// before the power went would still arrive; the board must ignore it. Nothing here terminates a link, so
/// `terminate` fails the test.
final class ScriptedBearer: PeripheralBearer {
    let handle: UInt16
    let connectionInterval: Duration?
    var canSend = true
    private var receive: (([UInt8]) -> Void)?
    private var down: ((HCIErrorCode) -> Void)?
    private(set) var sent: [[UInt8]] = []
    private(set) var vanished = false

    init(handle: UInt16, connectionInterval: Duration? = .milliseconds(30)) {
        self.handle = handle
        self.connectionInterval = connectionInterval
    }

    var isAttached: Bool { receive != nil }

    func attach(receive: @escaping ([UInt8]) -> Void, down: @escaping (HCIErrorCode) -> Void) {
        #expect(!isAttached, "the board attached twice to bearer \(handle)")
        self.receive = receive
        self.down = down
    }

    func send(_ pdu: [UInt8]) {
        #expect(!vanished, "the board sent \(pdu) on bearer \(handle) after it vanished")
        sent.append(pdu)
    }

    func terminate(reason: HCIErrorCode) {
        Issue.record("the board terminated bearer \(handle) with \(reason): nothing in these tests asks it to")
    }

    func vanish() { vanished = true }

    /// Delivers a PDU from the central and returns what the board sent in answer.
    @discardableResult
    func deliver(_ pdu: [UInt8]) -> [[UInt8]] {
        let before = sent.count
        receive?(pdu)
        return Array(sent[before...])
    }

    /// Sends one request and decodes the board's one answer.
    func request(_ message: some ATTMessage) throws -> ATT.PDU {
        let answers = deliver(message.encoded)
        try #require(answers.count == 1, "\(answers.count) answers to \(message)")
        return try ATT.PDU(decoding: answers[0])
    }

    /// The controller reports the end of the link.
    func goDown(_ reason: HCIErrorCode) {
        let down = self.down
        receive = nil
        self.down = nil
        down?(reason)
    }
}

/// Console entries as a bench would collect them.
final class ConsoleRecording {
    private(set) var entries: [ConsoleEntry] = []
    func append(_ entry: ConsoleEntry) { entries.append(entry) }
    var texts: [String] { entries.map(\.text) }
}

@Suite("HostedBoard: a board model on a radio of its own, on the wall clock")
struct HostedBoardTests {
    static let address = DeviceAddress(0x24_0A_C4_12_1A_2B)
    /// How late a wall-clock timer may fire before a test calls it wrong (tests share a loaded machine).
    static let lateness: Duration = .milliseconds(500)

    @Test("an esp-point boots, advertises its firmware's data, serves its table on a link, and re-advertises after it")
    func espPointServesALink() async throws {
        try await Simulation.runOnWallClock(seed: 1) { sim in
            let radio = RecordingBoardRadio(address: Self.address)
            let board = HostedBoard(profile: .espPoint, id: "esp-1", address: Self.address, sim: sim, radio: radio)
            let console = ConsoleRecording()
            board.attachConsole { console.append($0) }

            // Boot: BOOT, then READY after the firmware's 350 ms, on the wall clock.
            let poweredAt = sim.now
            board.powerOn()
            try await sim.clock.sleep(for: .milliseconds(600))
            let readyAt = try #require(board.readyAt)
            #expect(poweredAt.duration(to: readyAt) >= .milliseconds(350))
            #expect(poweredAt.duration(to: readyAt) < .milliseconds(350) + Self.lateness)
            guard case let .boot(firmware, bank, reset, bootID) = console.entries.first?.line else {
                Issue.record("the first console line is not BOOT: \(console.texts)")
                return
            }
            #expect(firmware == FirmwareVersion(1, 4, 2))
            #expect(bank == "A")
            #expect(reset == .powerOn)
            let ready = try #require(console.entries.last)
            #expect(ready.line == .ready(name: "ESP-Point-1a2b", address: Self.address))
            // On the wall clock time moves on while the firmware finishes its boot: READY is printed just after.
            #expect(ready.at >= readyAt)
            #expect(readyAt.duration(to: ready.at) < Self.lateness)
            #expect(console.entries.allSatisfy { $0.boot == bootID })

            // Advertising: the firmware's set, on the radio's default interval, and nothing else.
            #expect(radio.sets.count == 1)
            let advertised = try #require(radio.current)
            #expect(advertised == board.advertising)
            #expect(advertised.data == board.advertisingData.data)
            #expect(advertised.scanResponse == board.advertisingData.scanResponse)
            #expect(advertised.scanResponse.localName == board.advertisedName)
            #expect(advertised.connectable)
            #expect(advertised.interval == radio.defaultAdvertisingInterval)
            let manufacturer = try #require(advertised.data.manufacturerData(for: EspPoint.companyIdentifier))
            #expect(try EspPoint.ManufacturerStatus(decoding: manufacturer).flags == .pairingMode)

            // A central connects: advertising stops, the board attaches and says so.
            let link = ScriptedBearer(handle: 0x0041)
            board.accept(link)
            #expect(link.isAttached)
            #expect(board.isConnected)
            #expect(radio.sets.count == 2)
            #expect(radio.current == nil)
            #expect(console.texts.last?.hasSuffix("I/BLE: connected handle=0x41 interval_ms=30.0") == true)

            // MTU exchange: ESP-IDF's largest MTU.
            #expect(
                try link.request(ATT.ExchangeMTURequest(clientRxMTU: 247))
                    == .exchangeMTUResponse(ATT.ExchangeMTUResponse(serverRxMTU: 517)))

            // Primary service discovery finds the esp-point table, in order.
            var services: [BluetoothUUID] = []
            var start: UInt16 = 0x0001
            discovery: while true {
                let request = ATT.ReadByGroupTypeRequest(
                    startingHandle: start, endingHandle: 0xFFFF, groupType: GATT.AttributeType.primaryService)
                switch try link.request(request) {
                case let .readByGroupTypeResponse(response):
                    services += try response.entries.map { try BluetoothUUID(littleEndian: $0.value) }
                    let end = response.entries.last!.endGroupHandle
                    if end == 0xFFFF { break discovery }
                    start = end + 1
                case let .errorResponse(error):
                    #expect(error.error == .attributeNotFound)
                    break discovery
                case let other:
                    Issue.record("unexpected answer to service discovery: \(other)")
                    break discovery
                }
            }
            #expect(
                services == [
                    GATT.GenericAttribute.service, StandardUUID.deviceInformation, StandardUUID.battery,
                    EspPoint.sensorService,
                    EspPoint.commandService, EspPoint.otaService,
                ])

            // The serial number comes from the address the host gave the board.
            let serial = try link.request(
                ATT.ReadByTypeRequest(startingHandle: 1, endingHandle: 0xFFFF, attributeType: StandardUUID.serialNumber)
            )
            guard case let .readByTypeResponse(response) = serial else {
                Issue.record("unexpected answer to a read of the serial number: \(serial)")
                return
            }
            #expect(response.entries.map(\.value) == [Array("240AC4121A2B".utf8)])

            // The central goes away: the board logs it and advertises again, the same firmware data.
            link.goDown(.remoteUserTerminated)
            #expect(!board.isConnected)
            #expect(console.texts.last?.hasSuffix("I/BLE: disconnected reason=0x13") == true)
            #expect(radio.sets.count == 3)
            let again = try #require(radio.current)
            #expect(again.data == advertised.data)
            #expect(again.since > advertised.since)
        }
    }

    @Test("power off clears advertising and vanishes the link; the board ignores what still arrives on it")
    func powerOffVanishesTheLink() async throws {
        try await Simulation.runOnWallClock(seed: 1) { sim in
            let radio = RecordingBoardRadio(address: Self.address)
            let board = HostedBoard(profile: .espPoint, id: "esp-1", address: Self.address, sim: sim, radio: radio)
            board.powerOn()
            try await sim.clock.sleep(for: .milliseconds(600))

            // Off while connected: the link vanishes, and a PDU already on its way gets no answer.
            let link = ScriptedBearer(handle: 0x0042)
            board.accept(link)
            board.powerOff()
            #expect(link.vanished)
            #expect(!board.isPowered)
            #expect(!board.isConnected)
            #expect(radio.current == nil)
            #expect(link.deliver(ATT.ExchangeMTURequest(clientRxMTU: 247).encoded).isEmpty)

            // Off while advertising: the advertising set is cleared.
            board.powerOn()
            try await sim.clock.sleep(for: .milliseconds(600))
            #expect(radio.current != nil)
            board.powerOff()
            #expect(radio.current == nil)
            #expect(board.bootCount == 2)
        }
    }

    @Test("a connection the board cannot take is never attached: off, booting, or already connected")
    func refusedConnectionsStayUnattached() async throws {
        try await Simulation.runOnWallClock(seed: 1) { sim in
            let radio = RecordingBoardRadio(address: Self.address)
            let board = HostedBoard(profile: .espPoint, id: "esp-1", address: Self.address, sim: sim, radio: radio)
            let whileOff = ScriptedBearer(handle: 0x0040)
            board.accept(whileOff)
            board.powerOn()
            let whileBooting = ScriptedBearer(handle: 0x0041)
            board.accept(whileBooting)
            try await sim.clock.sleep(for: .milliseconds(600))
            let first = ScriptedBearer(handle: 0x0042)
            board.accept(first)
            let second = ScriptedBearer(handle: 0x0043)
            board.accept(second)
            #expect([whileOff, whileBooting, first, second].map(\.isAttached) == [false, false, true, false])
        }
    }

    @Test(
        "every board model boots on a radio of its own and advertises its firmware's data there",
        arguments: Profile.allCases)
    func everyProfileAdvertises(profile: Profile) async throws {
        try await Simulation.runOnWallClock(seed: 1) { sim in
            let address = VirtualBoardSettings.defaultAddress(for: "board-1", profile: profile)
            let radio = RecordingBoardRadio(address: address)
            let settings = VirtualBoardSettings(advertisingInterval: .milliseconds(250))
            let board = HostedBoard(
                profile: profile, id: "board-1", address: address, settings: settings, sim: sim, radio: radio)
            board.powerOn()
            try await sim.clock.sleep(for: .seconds(1))
            #expect(board.console.last?.line == .ready(name: board.advertisedName, address: address))
            let advertised = try #require(radio.current)
            #expect(advertised.data == board.advertisingData.data)
            #expect(advertised.scanResponse == board.advertisingData.scanResponse)
            #expect(advertised.data.merged(with: advertised.scanResponse).localName == board.advertisedName)
            #expect(advertised.interval == .milliseconds(250))
        }
    }
}
