import BLECore
import DeviceProfiles

/// A board described by a profile file (docs/profiles.md), served from its description: its GATT table, its
/// periodic notification at its rate with values its decoder reads back, its commands' responses and
/// notifications, its console's boot banner and ready line. So a user's rig runs before their firmware exists.
///
/// Values: a number format walks around the middle of the notification's `range` (or the rig's temperature) as
/// the farm's environment does; a heart-rate measurement follows the rig's heart-rate pattern; a battery level
/// drains; a body sensor location reads chest. Other characteristics hold the `value` the file gives, and what is
/// written to them.
final class DescribedFirmware: BoardFirmware {
    let data: DataProfile
    var profile: Profile { .described(data) }
    let version: FirmwareVersion
    var bootDuration: Duration { data.simulation.bootDuration }
    var maximumMTU: UInt16 { data.simulation.maximumMTU }

    private weak var board: VirtualBoard?
    private var environment: Environment
    private let pattern: HeartRatePattern
    private var battery: Battery
    private var random: SeededRandom
    private var lastBattery: UInt8?
    /// What each characteristic holds: its file value, then what was written.
    private var values: [BluetoothUUID: [UInt8]] = [:]
    /// The commands each characteristic takes; a characteristic with commands refuses other values.
    private let commands: [BluetoothUUID: [DataProfile.Command]]

    init(_ data: DataProfile, settings: VirtualBoardSettings, seed: UInt64, id: String) {
        self.data = data
        version = settings.firmware ?? data.simulation.firmware
        let base = data.periodic?.range.map { ($0.lowerBound + $0.upperBound) / 2 } ?? settings.temperature
        environment = Environment(seed: seed, stream: "described/\(id)/environment", temperature: base)
        pattern = settings.heartRate
        battery = Battery(level: settings.batteryPercent, drainPerHour: 0.4)
        random = SeededRandom(seed: seed, stream: "described/\(id)/jitter")
        commands = Dictionary(grouping: data.commands?.writes ?? [], by: \.characteristic)
    }

    func services() -> [GATTServer.Service] {
        data.services.map { service in
            GATTServer.Service(
                service.uuid,
                characteristics: service.characteristics.map { characteristic in
                    GATTServer.Characteristic(
                        characteristic.uuid, properties: characteristic.properties, value: .dynamic,
                        descriptors: characteristic.descriptors.filter {
                            $0.uuid != GATT.AttributeType.clientCharacteristicConfiguration
                        }.map { GATTServer.Descriptor($0.uuid, value: .stored($0.value)) })
                })
        }
    }

    func advertisingData(address: DeviceAddress) -> (data: AdvertisingData, scanResponse: AdvertisingData) {
        let advertising = data.advertising
        return (
            AdvertisingData(
                flags: AdvertisingFlags(rawValue: advertising.flags ?? 0x06), serviceUUIDs: advertising.serviceUUIDs,
                manufacturerData: advertising.manufacturerID.map {
                    (company: CompanyIdentifier(rawValue: $0), data: advertising.manufacturerData)
                }),
            AdvertisingData(localName: advertisedName(address: address))
        )
    }

    func advertisedName(address: DeviceAddress) -> String {
        data.advertising.name?.example(for: address) ?? data.name
    }

    func bootLine(reset: ConsoleLine.ResetReason, bootID: UInt32, address: DeviceAddress) -> ConsoleLine {
        ConsoleLine(parsing: line(data.console.bootLine, reset: reset, bootID: bootID, address: address))
    }

    func readyLine(address: DeviceAddress) -> ConsoleLine {
        ConsoleLine(parsing: line(data.console.readyLine, reset: .powerOn, bootID: 0, address: address))
    }

    private func line(_ template: String, reset: ConsoleLine.ResetReason, bootID: UInt32, address: DeviceAddress)
        -> String
    {
        DataProfile.Console.fill(
            template, firmware: version, reset: reset, bootID: bootID, name: advertisedName(address: address),
            address: address)
    }

    func booted(on board: VirtualBoard, reason: ConsoleLine.ResetReason) {
        self.board = board
        values = Dictionary(
            data.allCharacteristics.compactMap { entry in entry.characteristic.value.map { (entry.characteristic.uuid, $0) } },
            uniquingKeysWith: { first, _ in first })
        lastBattery = battery.percent
        if let periodic = data.periodic {
            board.every(periodic.period) { [weak self] in self?.tick(periodic) }
        }
        if data.allCharacteristics.contains(where: { $0.characteristic.codec == .batteryLevel }) {
            board.every(.seconds(1)) { [weak self] in self?.drainBattery() }
        }
    }

    /// One period of the sensor: move the value on and notify it to subscribers.
    private func tick(_ periodic: DataProfile.Periodic) {
        environment.advance(by: periodic.period)
        guard let board, let service = data.characteristic(periodic.characteristic)?.service,
            board.hasSubscribers(periodic.characteristic, in: service)
        else { return }
        board.notify(periodic.characteristic, in: service, current(periodic.characteristic))
    }

    private func drainBattery() {
        battery.drain(over: .seconds(1))
        guard battery.percent != lastBattery, let board else { return }
        lastBattery = battery.percent
        for (service, characteristic) in data.allCharacteristics where characteristic.codec == .batteryLevel {
            if characteristic.properties.contains(.notify) { board.notify(characteristic.uuid, in: service, [battery.percent]) }
        }
    }

    /// The value `uuid` holds now.
    private func current(_ uuid: BluetoothUUID) -> [UInt8] {
        if let periodic = data.periodic, periodic.characteristic == uuid { return encode(periodic.decoder, periodic.range) }
        if let codec = data.characteristic(uuid)?.characteristic.codec { return encode(.codec(codec), nil) }
        return values[uuid] ?? []
    }

    private func encode(_ decoder: DataProfile.ValueDecoder, _ range: ClosedRange<Double>?) -> [UInt8] {
        switch decoder {
        case .number(let format):
            let value = environment.temperature
            return format.encode(range.map { min($0.upperBound, max($0.lowerBound, value)) } ?? value)
        case .codec(.heartRateMeasurement):
            let uptime = board?.uptime ?? .zero
            let jitter = (random.nextUnit() - 0.5) * 3
            let bpm = UInt16(clamping: Int((pattern.rate(at: uptime) + jitter).rounded()))
            return HeartRateMeasurement(beatsPerMinute: bpm, sensorContact: .detected).encoded
        case .codec(.batteryLevel): return [battery.percent]
        case .codec(.bodySensorLocation): return BodySensorLocation.chest.encoded
        }
    }

    func read(_ access: GATTServer.Access) -> Result<[UInt8], ATT.ErrorCode> {
        guard let characteristic = data.characteristic(access.characteristic)?.characteristic,
            characteristic.properties.contains(.read)
        else { return .failure(.readNotPermitted) }
        return .success(current(access.characteristic))
    }

    func write(_ value: [UInt8], kind: GATTServer.WriteKind, _ access: GATTServer.Access) -> ATT.ErrorCode? {
        guard let known = commands[access.characteristic] else {
            values[access.characteristic] = value
            return nil
        }
        guard let command = known.first(where: { $0.bytes == value }) else { return .valueNotAllowed }
        if let error = command.expect.error { return ATT.ErrorCode(rawValue: error) }
        values[access.characteristic] = value
        board?.log(.info, "CMD", command.name)
        if let expected = command.expect.notification, let service = data.characteristic(expected.characteristic)?.service {
            // Answer well within the time the command allows, as firmware that meets its profile does.
            board?.after(command.within / 4) { [weak self] in
                guard let self, let board = self.board else { return }
                board.notify(expected.characteristic, in: service, expected.bytes ?? self.current(expected.characteristic))
            }
        }
        return nil
    }
}
