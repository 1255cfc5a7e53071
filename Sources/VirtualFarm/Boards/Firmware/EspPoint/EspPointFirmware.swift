import BLECore
import DeviceProfiles

/// The rig's ESP32 test firmware on an esp-point board (docs/board-contract.md, "esp-point"), composed of one type
/// per service, each owning its state: Device Information (here, stateless), Battery (``EspPointBatteryService``),
/// the Sensor service's Reading and sampling (``EspPointSensorService``) and its flash log
/// (``EspPointLogService``), Command and Command Status (``EspPointCommandService``), Auth and pairing
/// (``EspPointAuthService``), OTA with two banks and the bootloader (``EspPointOTAService``), and the RTC
/// (``EspPointClock``). This type builds the table (`+GATT`), routes the GATT server's calls and the console's
/// commands (`+Console`) to them, and runs the boot sequence.
///
/// State is kept where the chip keeps it, and each service says which of its fields live where. Flash (NVS and the
/// log partition) survives every reset: the pairing key, pairing mode, the sample interval, the log with its
/// sequence counter, the banks and the OTA record. The RTC domain survives resets but not power loss: the unix time.
/// RAM is cleared at every boot in ``booted(on:reason:)``: which connection is authenticated, challenges, the LED,
/// a log READ in progress, the OTA session. The sensors and the battery are physics and carry on regardless.
final class EspPointFirmware: BoardFirmware {
    let profile = Profile.espPoint
    /// The ROM and second-stage bootloaders, the app's init, NimBLE's host sync.
    let bootDuration: Duration = .milliseconds(350)
    /// ESP-IDF's largest local MTU.
    let maximumMTU: UInt16 = 517

    static let defaultVersion = FirmwareVersion(1, 4, 2)
    static let manufacturerName = "Espressif Systems"

    let id: String
    let settings: VirtualBoardSettings
    private(set) weak var board: VirtualBoard?

    let auth: EspPointAuthService
    let battery: EspPointBatteryService
    let clock: EspPointClock
    let log: EspPointLogService
    let sensor: EspPointSensorService
    let commands: EspPointCommandService
    let ota: EspPointOTAService
    /// The test firmware's extra service (console `gatt-test-service on`), to change the table while running.
    var testServiceEnabled = false

    init(settings: VirtualBoardSettings, seed: UInt64, id: String) {
        self.id = id
        self.settings = settings
        let auth = EspPointAuthService()
        let battery = EspPointBatteryService(percent: settings.batteryPercent) { !auth.sessions.isEmpty }
        let clock = EspPointClock()
        let log = EspPointLogService(capacity: max(1, settings.logCapacity), auth: auth)
        let environment = Environment(
            seed: seed, stream: "esp-point/\(id)/environment", temperature: settings.temperature)
        let sensor = EspPointSensorService(
            environment: environment,
            interval: min(86_400, max(1, settings.sampleInterval)), log: log, battery: battery, clock: clock)
        (self.auth, self.battery, self.clock, self.log, self.sensor) = (auth, battery, clock, log, sensor)
        commands = EspPointCommandService(auth: auth, sensor: sensor, log: log, clock: clock)
        ota = EspPointOTAService(factory: settings.firmware ?? Self.defaultVersion, auth: auth, battery: battery)
    }

    /// The services act on the board through it: its console, its GATT server, its timers.
    private func attach(_ board: VirtualBoard) {
        self.board = board
        auth.board = board
        battery.board = board
        clock.board = board
        log.board = board
        sensor.board = board
        commands.board = board
        ota.board = board
    }

    // MARK: What the bootloader started

    /// The running bank's firmware.
    var version: FirmwareVersion { ota.version }
    var bank: AppBank? { ota.flash.banks.running }
    var bootable: Bool { ota.bootable }

    // MARK: Advertising

    var manufacturerFlags: EspPoint.ManufacturerStatus.Flags {
        var flags: EspPoint.ManufacturerStatus.Flags = []
        if !log.flash.records.isEmpty { flags.insert(.backlogPresent) }
        if auth.pairingMode { flags.insert(.pairingMode) }
        if ota.flash.record != nil { flags.insert(.otaSessionPending) }
        return flags
    }

    /// Flags, the Sensor service and the manufacturer status in the advertisement; the local name joins them if
    /// everything fits a legacy PDU, else it goes in the scan response (it does not fit: 46 bytes with the name).
    func advertisingData(address: DeviceAddress) -> (data: AdvertisingData, scanResponse: AdvertisingData) {
        let name = advertisedName(address: address)
        let status = EspPoint.ManufacturerStatus(firmware: version, flags: manufacturerFlags)
        var data = AdvertisingData(
            flags: .generalDiscoverableLEOnly, localName: name, serviceUUIDs: [EspPoint.sensorService],
            manufacturerData: (EspPoint.companyIdentifier, status.encoded))
        guard !data.fitsLegacyAdvertising else { return (data, AdvertisingData(structures: [])) }
        data.localName = nil
        return (data, AdvertisingData(localName: name))
    }

    func advertisedName(address: DeviceAddress) -> String { EspPoint.advertisedName(for: address) }

    // MARK: Boot

    /// The second-stage bootloader picks the bank (``EspPointOTAService/bootloader(on:reason:)``).
    func bootloader(on board: VirtualBoard, reason: ConsoleLine.ResetReason) {
        attach(board)
        ota.bootloader(on: board, reason: reason)
    }

    func powerLost() -> [String] { ota.powerLost() }

    func booted(on board: VirtualBoard, reason: ConsoleLine.ResetReason) {
        attach(board)
        auth.rebooted(random: board.random("firmware"))
        commands.rebooted()
        log.rebooted()
        ota.rebooted()
        clock.rebooted(on: board, reason: reason)
        battery.rebooted(at: board.sim.now)
        let paired = auth.isPaired ? "yes" : "no"
        let flash = log.flash
        board.log(
            .info, "APP",
            "esp-point test firmware interval_s=\(sensor.interval) log=\(flash.records.count)/\(flash.capacity)"
                + " next_seq=\(flash.nextSequence) paired=\(paired)")
        if auth.pairingMode { board.log(.info, "PAIR", "pairing mode") }
        guard ota.selfTestIfPending(on: board) else { return }
        sensor.scheduleSample()
        battery.startPolling()
    }

    func connected(_ connection: GATTServer.ConnectionID) {
        auth.opened(connection)
        battery.update()
    }

    func disconnected(_ connection: GATTServer.ConnectionID) {
        battery.update()
        auth.closed(connection)
        log.closed(connection)
        ota.closed(connection)
    }

    // MARK: The GATT server's calls

    func read(_ access: GATTServer.Access) -> Result<[UInt8], ATT.ErrorCode> {
        switch access.characteristic {
        case StandardUUID.serialNumber:
            guard let board else { return .failure(.unlikelyError) }
            return .success(Array(serialNumber(board.address).utf8))
        case StandardUUID.batteryLevel: return .success(battery.readLevel())
        case EspPoint.reading: return .success(sensor.currentReading.encoded)
        case EspPoint.commandStatus: return .success(commands.lastStatus)
        case EspPoint.auth: return auth.challenge(on: access.connection)
        default: return .failure(.unlikelyError)
        }
    }

    func write(_ value: [UInt8], kind: GATTServer.WriteKind, _ access: GATTServer.Access) -> ATT.ErrorCode? {
        switch access.characteristic {
        case EspPoint.command: commands.write(value, on: access.connection)
        case EspPoint.auth: auth.answer(value, on: access.connection)
        case EspPoint.logControl: log.control(value, on: access.connection)
        case EspPoint.otaControl: ota.control(value, on: access.connection)
        case EspPoint.otaData: ota.data(value, on: access.connection)
        default: .writeNotPermitted
        }
    }

    /// The address without colons, as ESP-IDF prints the base MAC.
    func serialNumber(_ address: DeviceAddress) -> String {
        address.description.filter { $0 != ":" }
    }
}
