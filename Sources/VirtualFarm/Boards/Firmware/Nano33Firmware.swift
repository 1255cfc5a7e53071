import BLECore
import DeviceProfiles

/// The Arduino tutorial sketch on a Nano 33 BLE Sense (docs/board-contract.md, "nano33-ble-sense"): an LED the central
/// switches and a temperature sensor read once a second and notified when subscribed. No pairing, no log, no OTA.
final class Nano33Firmware: BoardFirmware {
    let profile = Profile.nano33BLESense
    let version: FirmwareVersion
    /// The mbed core's reset, the sketch's setup() and BLE.begin().
    let bootDuration: Duration = .milliseconds(650)
    /// ArduinoBLE's receive MTU.
    let maximumMTU: UInt16 = 247

    private weak var board: VirtualBoard?
    private var environment: Environment
    private let baseTemperature: Double
    /// The LED, as the board drives it.
    private(set) var ledOn = false
    private var lastReported: Int8?

    init(settings: VirtualBoardSettings, seed: UInt64, id: String) {
        version = settings.firmware ?? FirmwareVersion(1, 0, 0)
        baseTemperature = settings.temperature
        environment = Environment(seed: seed, stream: "nano33/\(id)/environment", temperature: settings.temperature)
    }

    func services() -> [GATTServer.Service] {
        [
            GATTServer.Service(
                Nano33BLESense.ledService,
                characteristics: [
                    GATTServer.Characteristic(
                        Nano33BLESense.ledStatus, properties: [.write], value: .dynamic, length: .fixed(1))
                ]),
            GATTServer.Service(
                Nano33BLESense.sensorService,
                characteristics: [
                    GATTServer.Characteristic(
                        Nano33BLESense.temperature, properties: [.read, .notify], value: .dynamic, length: .fixed(1))
                ]),
        ]
    }

    func advertisingData(address: DeviceAddress) -> (data: AdvertisingData, scanResponse: AdvertisingData) {
        (
            AdvertisingData(flags: .generalDiscoverableLEOnly, serviceUUIDs: [Nano33BLESense.ledService]),
            AdvertisingData(localName: Nano33BLESense.advertisedName)
        )
    }

    func advertisedName(address: DeviceAddress) -> String { Nano33BLESense.advertisedName }

    func booted(on board: VirtualBoard, reason: ConsoleLine.ResetReason) {
        self.board = board
        ledOn = false
        lastReported = nil
        board.every(.seconds(1)) { [weak self] in self?.sample() }
    }

    /// The sketch's loop: read the sensor every second and notify the whole-degree value.
    private func sample() {
        environment.advance(by: .seconds(1))
        guard let board, board.hasSubscribers(Nano33BLESense.temperature, in: Nano33BLESense.sensorService) else {
            return
        }
        let value = temperature
        lastReported = value
        board.notify(Nano33BLESense.temperature, in: Nano33BLESense.sensorService, [UInt8(bitPattern: value)])
    }

    private var temperature: Int8 { Int8(clamping: Int(environment.temperature.rounded())) }

    func read(_ access: GATTServer.Access) -> Result<[UInt8], ATT.ErrorCode> {
        switch access.characteristic {
        case Nano33BLESense.temperature: .success([UInt8(bitPattern: temperature)])
        default: .failure(.unlikelyError)
        }
    }

    func write(_ value: [UInt8], kind: GATTServer.WriteKind, _ access: GATTServer.Access) -> ATT.ErrorCode? {
        guard access.characteristic == Nano33BLESense.ledStatus, let state = value.first else { return .unlikelyError }
        guard state <= 1 else { return .valueNotAllowed }
        ledOn = state == 1
        board?.log(.info, "LED", ledOn ? "on" : "off")
        return nil
    }
}
