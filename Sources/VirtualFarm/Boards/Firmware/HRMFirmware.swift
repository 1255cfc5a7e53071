import BLECore
import DeviceProfiles

/// The heart-rate monitor of the Core Bluetooth articles (docs/board-contract.md, "hrm"): a Heart Rate Measurement
/// every second following the board's ``HeartRatePattern``, the body sensor location, an alert light the central
/// switches with `redAlert` / `turnOff`, and a battery.
final class HRMFirmware: BoardFirmware {
    let profile = Profile.hrm
    let version: FirmwareVersion
    let bootDuration: Duration = .milliseconds(220)
    let maximumMTU: UInt16 = 185

    private weak var board: VirtualBoard?
    private let pattern: HeartRatePattern
    private var battery: Battery
    private var random: SeededRandom
    private var measurements = 0
    /// Kilojoules since the last reset of the counter (it saturates at 0xFFFF, Heart Rate Service §3.1.1.3).
    private var energy: Double = 0
    private var lastBatteryPercent: UInt8?
    /// The alert light as the board shows it.
    private(set) var alert = HeartRateMonitor.Alert.turnOff
    /// Every alert write the board accepted, in order, with its instant.
    private(set) var alertWrites: [(alert: HeartRateMonitor.Alert, at: RigInstant)] = []

    /// The chest strap's location (Body Sensor Location 0x01).
    static let location = BodySensorLocation.chest

    init(settings: VirtualBoardSettings, seed: UInt64, id: String) {
        version = settings.firmware ?? FirmwareVersion(2, 1, 0)
        pattern = settings.heartRate
        battery = Battery(level: settings.batteryPercent, drainPerHour: 0.4)
        random = SeededRandom(seed: seed, stream: "hrm/\(id)/jitter")
    }

    func services() -> [GATTServer.Service] {
        [
            GATTServer.Service(
                StandardUUID.heartRate,
                characteristics: [
                    GATTServer.Characteristic(
                        StandardUUID.heartRateMeasurement, properties: [.notify], value: .dynamic),
                    GATTServer.Characteristic(
                        StandardUUID.bodySensorLocation, properties: [.read],
                        value: .stored([Self.location.rawValue]), length: .fixed(1)),
                    GATTServer.Characteristic(
                        HeartRateMonitor.alertLevel, properties: [.write], value: .dynamic,
                        length: .variable(maximum: 16),
                        descriptors: [.userDescription("Alert light")]),
                ]),
            GATTServer.Service(
                StandardUUID.battery,
                characteristics: [
                    GATTServer.Characteristic(
                        StandardUUID.batteryLevel, properties: [.read, .notify], value: .dynamic, length: .fixed(1))
                ]),
        ]
    }

    func advertisingData(address: DeviceAddress) -> (data: AdvertisingData, scanResponse: AdvertisingData) {
        (
            AdvertisingData(
                flags: .generalDiscoverableLEOnly, localName: HeartRateMonitor.advertisedName(for: address),
                serviceUUIDs: [StandardUUID.heartRate, StandardUUID.battery]),
            AdvertisingData(txPowerLevel: 0)
        )
    }

    func advertisedName(address: DeviceAddress) -> String { HeartRateMonitor.advertisedName(for: address) }

    func booted(on board: VirtualBoard, reason: ConsoleLine.ResetReason) {
        self.board = board
        measurements = 0
        energy = 0
        alert = .turnOff
        lastBatteryPercent = battery.percent
        board.every(.seconds(1)) { [weak self] in self?.tick() }
    }

    /// One second of the sensor: drain the battery, measure, and notify subscribers.
    private func tick() {
        guard let board else { return }
        battery.drain(over: .seconds(1))
        if battery.percent != lastBatteryPercent {
            lastBatteryPercent = battery.percent
            board.notify(StandardUUID.batteryLevel, in: StandardUUID.battery, [battery.percent])
        }
        let measurement = measure(at: board.uptime)
        guard board.hasSubscribers(StandardUUID.heartRateMeasurement, in: StandardUUID.heartRate) else { return }
        board.notify(StandardUUID.heartRateMeasurement, in: StandardUUID.heartRate, measurement.encoded)
    }

    /// The measurement at `uptime`: the pattern's rate with ±1.5 bpm of seeded jitter, the RR intervals of the
    /// beats in the last second, and the energy counter on every tenth measurement.
    func measure(at uptime: Duration) -> HeartRateMeasurement {
        let jitter = (random.nextUnit() - 0.5) * 3
        let bpm = UInt16(clamping: Int((pattern.rate(at: uptime) + jitter).rounded()))
        measurements += 1
        // Roughly 0.1 kJ per beat at rest, rising with the rate.
        energy = min(Double(UInt16.max), energy + Double(bpm) / 60 * (0.05 + Double(bpm) / 2000))
        var rr: [UInt16] = []
        if pattern.rrIntervals, bpm > 0 {
            let interval = UInt16(clamping: Int((60 / Double(bpm) * 1024).rounded()))
            rr = Array(repeating: interval, count: max(1, Int(bpm) / 60))
        }
        return HeartRateMeasurement(
            beatsPerMinute: bpm, sensorContact: .detected,
            energyExpended: pattern.energyExpended && measurements % 10 == 0 ? UInt16(energy) : nil, rrIntervals: rr)
    }

    func read(_ access: GATTServer.Access) -> Result<[UInt8], ATT.ErrorCode> {
        switch access.characteristic {
        case StandardUUID.batteryLevel: .success([battery.percent])
        default: .failure(.readNotPermitted)
        }
    }

    func write(_ value: [UInt8], kind: GATTServer.WriteKind, _ access: GATTServer.Access) -> ATT.ErrorCode? {
        guard access.characteristic == HeartRateMonitor.alertLevel else { return .writeNotPermitted }
        guard let text = String(validating: value, as: UTF8.self), let alert = HeartRateMonitor.Alert(rawValue: text)
        else { return .valueNotAllowed }
        self.alert = alert
        if let board { alertWrites.append((alert, board.sim.now)) }
        board?.log(.info, "ALERT", alert.rawValue)
        return nil
    }
}
