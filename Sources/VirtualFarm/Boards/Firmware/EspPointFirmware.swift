import BLECore
import DeviceProfiles

/// The rig's ESP32 test firmware on an esp-point board (docs/board-contract.md, "esp-point"): Device Information,
/// Battery, the Sensor service with its flash log, commands with pairing and challenge–response authentication, and OTA
/// with two banks (`+OTA`, `+OTAState`, `+Boot`).
///
/// State is kept where the chip keeps it. Flash (NVS and the log partition) survives every reset: the pairing
/// key, pairing mode, the sample interval and the log with its sequence counter. The RTC domain survives resets
/// but not power loss: the unix time. RAM is cleared at every boot in ``booted(on:reason:)``: which connection
/// is authenticated, challenges, the LED, a log READ in progress. The sensors and the battery are physics and
/// carry on regardless.
///
/// Split by concern: this file holds the table, advertising, boot and sampling; `+Commands` the Command and Auth
/// characteristics; `+Log` the Log Control protocol and the paced Log Data stream; `+OTA` the OTA protocol and
/// `+Boot` the bootloader's bank choice and the self-test.
final class EspPointFirmware: BoardFirmware {
    let profile = Profile.espPoint
    /// The running bank's firmware; the bootloader sets both at every boot.
    var version: FirmwareVersion
    var bank: String? = "A"
    /// The bootloader found an intact image to start (false: the board is bricked, see `+Boot`).
    var bootable = true
    /// The ROM and second-stage bootloaders, the app's init, NimBLE's host sync.
    let bootDuration: Duration = .milliseconds(350)
    /// ESP-IDF's largest local MTU.
    let maximumMTU: UInt16 = 517

    static let defaultVersion = FirmwareVersion(1, 4, 2)
    static let manufacturerName = "Espressif Systems"
    /// 2026-01-01T00:00:00Z: what the RTC counts from after power-on until the central sets the time.
    static let powerOnUnixTime: UInt32 = 1_767_225_600
    /// How often the firmware looks at the battery gauge.
    static let batteryPollInterval: Duration = .seconds(60)
    /// The radio drains the cell this many times faster while a central is connected.
    static let connectedDrainFactor = 4.0

    weak var board: VirtualBoard?
    let id: String
    let settings: VirtualBoardSettings

    // MARK: Flash: survives every reset

    /// The 32-byte key the central chose at PAIR_CONFIRM; nil until paired and after FACTORY_RESET.
    var key: [UInt8]?
    /// On first boot, after FACTORY_RESET and after the console's `pair`.
    var pairingMode = true
    var log: FlashLog
    /// The app banks, `otadata` and the OTA record (`+OTAState`).
    var ota: OTAFlashState
    /// Seconds between samples (SET_INTERVAL).
    var interval: UInt32
    /// The last sample taken, which Reading returns (the record itself may have been acknowledged since).
    var latest: EspPoint.Reading?

    // MARK: RTC domain: survives resets, lost when the power goes

    /// The unix time at a known instant; the RTC counts on from there.
    var clockBase: (unix: UInt32, at: RigInstant)?

    // MARK: Physics

    var environment: Environment
    var battery: Battery
    var batteryUpdatedAt: RigInstant?

    // MARK: RAM: cleared at every boot

    /// One central's state on one connection.
    struct Session {
        /// The Auth challenge of this connection; replaced after a wrong answer.
        var challenge: [UInt8]
        var authenticated = false
        /// Set by PAIR_BEGIN; PAIR_CONFIRM needs it on the same connection.
        var pairingNonce: [UInt8]?
    }

    var sessions: [GATTServer.ConnectionID: Session] = [:]
    var random = SeededRandom(seed: 0)
    private(set) var ledOn = false
    /// The last Command Status, which a read returns; empty until a command is answered.
    var lastCommandStatus: [UInt8] = []
    /// Bumped when the sampling timer is re-armed, so the superseded timer does nothing when it fires.
    private var sampleTimer = 0
    /// The Battery Level at boot or last notified: it is notified only when the whole percent changes.
    private var reportedBatteryPercent: UInt8?
    /// A Log Control READ streaming on Log Data.
    var logRead: LogRead?
    /// The test firmware's extra service (console `gatt-test-service on`), to change the table while running.
    var testServiceEnabled = false
    /// The OTA session and the flash pipeline.
    var otaRun = OTARunState()

    init(settings: VirtualBoardSettings, seed: UInt64, id: String) {
        self.id = id
        self.settings = settings
        version = settings.firmware ?? Self.defaultVersion
        ota = OTAFlashState(factory: settings.firmware ?? Self.defaultVersion)
        log = FlashLog(capacity: max(1, settings.logCapacity))
        interval = min(86_400, max(1, settings.sampleInterval))
        environment = Environment(seed: seed, stream: "esp-point/\(id)/environment", temperature: settings.temperature)
        battery = Battery(level: settings.batteryPercent)
    }

    // MARK: GATT table

    func services() -> [GATTServer.Service] {
        typealias C = GATTServer.Characteristic
        return [
            // First, as the contract lists it: Service Changed keeps its handle whatever follows.
            GATTServer.Service.genericAttribute(),
            GATTServer.Service(
                StandardUUID.deviceInformation,
                characteristics: [
                    C(StandardUUID.manufacturerName, properties: .read, value: .stored(Self.manufacturerName)),
                    C(StandardUUID.modelNumber, properties: .read, value: .stored(EspPoint.modelNumber)),
                    // From the board's address, which the firmware learns at boot (the eFuse MAC).
                    C(StandardUUID.serialNumber, properties: .read, value: .dynamic),
                    C(StandardUUID.firmwareRevision, properties: .read, value: .stored(version.description)),
                ]),
            GATTServer.Service(
                StandardUUID.battery,
                characteristics: [
                    C(StandardUUID.batteryLevel, properties: [.read, .notify], value: .dynamic, length: .fixed(1))
                ]),
            GATTServer.Service(
                EspPoint.sensorService,
                characteristics: [
                    C(
                        EspPoint.reading, properties: [.read, .notify], value: .dynamic,
                        length: .fixed(EspPoint.Reading.size)),
                    C(EspPoint.logControl, properties: [.write, .indicate], value: .dynamic),
                    C(EspPoint.logData, properties: .notify, value: .dynamic),
                ]),
            GATTServer.Service(
                EspPoint.commandService,
                characteristics: [
                    C(
                        EspPoint.command, properties: .write, value: .dynamic,
                        length: .variable(maximum: 1 + EspPoint.keyLength)),
                    C(EspPoint.commandStatus, properties: [.read, .notify], value: .dynamic),
                    C(EspPoint.auth, properties: [.read, .write], value: .dynamic),
                ]),
            GATTServer.Service(
                EspPoint.otaService,
                characteristics: [
                    C(EspPoint.otaControl, properties: [.write, .notify], value: .dynamic),
                    C(EspPoint.otaData, properties: .writeWithoutResponse, value: .dynamic),
                ]),
        ] + (testServiceEnabled ? [Self.testService] : [])
    }

    /// The address without colons, as ESP-IDF prints the base MAC.
    func serialNumber(_ address: DeviceAddress) -> String {
        address.description.filter { $0 != ":" }
    }

    // MARK: Advertising

    var manufacturerFlags: EspPoint.ManufacturerStatus.Flags {
        var flags: EspPoint.ManufacturerStatus.Flags = []
        if !log.records.isEmpty { flags.insert(.backlogPresent) }
        if pairingMode { flags.insert(.pairingMode) }
        if ota.record != nil { flags.insert(.otaSessionPending) }
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

    /// Something in the manufacturer flags may have changed.
    func advertisedStateChanged() { board?.refreshAdvertising() }

    // MARK: Boot

    func booted(on board: VirtualBoard, reason: ConsoleLine.ResetReason) {
        self.board = board
        sessions = [:]
        ledOn = false
        lastCommandStatus = []
        logRead = nil
        otaRun = OTARunState()
        random = board.random("firmware")
        let now = board.sim.now
        if reason == .powerOn || clockBase == nil {
            clockBase = (Self.powerOnUnixTime, now.advanced(by: .zero - board.uptime))
        }
        batteryUpdatedAt = now
        reportedBatteryPercent = battery.percent
        let paired = key != nil ? "yes" : "no"
        board.log(
            "I", "APP",
            "esp-point test firmware interval_s=\(interval) log=\(log.records.count)/\(log.capacity)"
                + " next_seq=\(log.nextSequence) paired=\(paired)")
        if pairingMode { board.log("I", "PAIR", "pairing mode") }
        guard selfTestIfPending(on: board) else { return }
        scheduleSample()
        board.every(Self.batteryPollInterval) { [weak self] in self?.pollBattery() }
    }

    func connected(_ connection: GATTServer.ConnectionID) {
        sessions[connection] = Session(challenge: freshChallenge())
        updateBattery()
    }

    func disconnected(_ connection: GATTServer.ConnectionID) {
        updateBattery()
        sessions[connection] = nil
        if logRead?.connection == connection { logRead = nil }
        if otaRun.connection == connection { otaRun.connection = nil }
    }

    func freshChallenge() -> [UInt8] { randomBytes(EspPoint.challengeLength) }

    func randomBytes(_ count: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        while bytes.count < count {
            let word = random.next()
            bytes += (0..<8).map { UInt8(truncatingIfNeeded: word >> (8 * $0)) }
        }
        return Array(bytes.prefix(count))
    }

    // MARK: Time

    /// The RTC's unix time now.
    var unixTime: UInt32 {
        guard let board, let clockBase else { return Self.powerOnUnixTime }
        let elapsed = max(0, clockBase.at.duration(to: board.sim.now).seconds)
        return clockBase.unix &+ UInt32(truncatingIfNeeded: Int64(elapsed.rounded(.down)))
    }

    func setTime(unix: UInt32) {
        guard let board else { return }
        clockBase = (unix, board.sim.now)
    }

    // MARK: Sampling

    /// Arms the sampling timer for one interval from now, replacing any earlier one.
    func scheduleSample() {
        sampleTimer += 1
        let timer = sampleTimer
        board?.after(.seconds(Int64(interval))) { [weak self] in
            guard let self, sampleTimer == timer else { return }
            sample()
            scheduleSample()
        }
    }

    /// Reads the sensors, appends the record to the flash log and notifies it on Reading.
    private func sample() {
        environment.advance(by: .seconds(Int64(interval)))
        updateBattery()
        let reading = appendReading(unixTime: unixTime)
        latest = reading
        guard let board else { return }
        board.notify(EspPoint.reading, in: EspPoint.sensorService, reading.encoded)
        advertisedStateChanged()
        notifyBatteryIfChanged()
    }

    /// Appends a record of the current sensor values to the flash log.
    @discardableResult
    func appendReading(unixTime: UInt32) -> EspPoint.Reading {
        let droppedBefore = log.dropped
        log.append(
            unixTime: unixTime, temperature: sensedTemperature, humidity: sensedHumidity,
            batteryMillivolts: battery.millivolts)
        if log.dropped != droppedBefore {
            board?.log("W", "LOG", "ring full: overwrote an unacknowledged record dropped=\(log.dropped)")
        }
        return log.records[log.records.count - 1]
    }

    /// The value Reading returns: the last sample, or before the first one a live reading with seq 0 (a
    /// sequence number the log never uses).
    var currentReading: EspPoint.Reading {
        latest
            ?? EspPoint.Reading(
                sequence: 0, unixTime: unixTime, temperature: sensedTemperature, humidity: sensedHumidity,
                batteryMillivolts: battery.millivolts)
    }

    /// The sensor's temperature in hundredths of a degree.
    private var sensedTemperature: Int16 { Int16(clamping: Int((environment.temperature * 100).rounded())) }

    /// The sensor's relative humidity in hundredths of a percent.
    private var sensedHumidity: UInt16 { UInt16(clamping: Int((environment.humidity * 100).rounded())) }

    // MARK: Battery

    /// Drains the battery for the time since it was last updated, faster while a central is connected.
    func updateBattery() {
        guard let board else { return }
        let now = board.sim.now
        if let since = batteryUpdatedAt {
            let elapsed = since.duration(to: now)
            battery.drain(over: sessions.isEmpty ? elapsed : elapsed * Self.connectedDrainFactor)
        }
        batteryUpdatedAt = now
    }

    private func pollBattery() {
        updateBattery()
        notifyBatteryIfChanged()
    }

    private func notifyBatteryIfChanged() {
        let percent = battery.percent
        guard percent != reportedBatteryPercent else { return }
        reportedBatteryPercent = percent
        board?.notify(StandardUUID.batteryLevel, in: StandardUUID.battery, [percent])
    }

    // MARK: Reads

    func read(_ access: GATTServer.Access) -> Result<[UInt8], ATT.ErrorCode> {
        switch access.characteristic {
        case StandardUUID.serialNumber:
            guard let board else { return .failure(.unlikelyError) }
            return .success(Array(serialNumber(board.address).utf8))
        case StandardUUID.batteryLevel:
            updateBattery()
            return .success([battery.percent])
        case EspPoint.reading: return .success(currentReading.encoded)
        case EspPoint.commandStatus: return .success(lastCommandStatus)
        case EspPoint.auth:
            guard let session = sessions[access.connection] else { return .failure(.unlikelyError) }
            return .success(session.challenge)
        default: return .failure(.unlikelyError)
        }
    }

    func write(_ value: [UInt8], kind: GATTServer.WriteKind, _ access: GATTServer.Access) -> ATT.ErrorCode? {
        switch access.characteristic {
        case EspPoint.command: command(value, on: access.connection)
        case EspPoint.auth: answer(value, on: access.connection)
        case EspPoint.logControl: logControl(value, on: access.connection)
        case EspPoint.otaControl: otaControl(value, on: access.connection)
        case EspPoint.otaData: otaData(value, on: access.connection)
        default: .writeNotPermitted
        }
    }

    // MARK: Console

    func consoleCommand(_ words: [Substring]) -> Bool {
        guard let board else { return false }
        switch words.first {
        case "pair":
            enterPairingMode(because: "button")
        case "factory-reset":
            factoryReset()
        case "gatt-test-service":
            gattTestServiceCommand(words)
        case "log-fill":
            guard words.count == 2, let count = Int(words[1]), count >= 0 else {
                board.log("W", "CONSOLE", "usage: log-fill N")
                return true
            }
            logFill(count)
        default:
            return otaConsoleCommand(words)
        }
        return true
    }

    /// Appends `count` synthetic readings, back-dated one interval apart so the newest is stamped now.
    func logFill(_ count: Int) {
        let now = unixTime
        for i in 0..<count {
            environment.advance(by: .seconds(Int64(interval)))
            let back = UInt64(count - 1 - i) * UInt64(interval)
            let stamp = UInt64(now) > back ? UInt32(UInt64(now) - back) : 0
            latest = appendReading(unixTime: stamp)
        }
        let state = "count=\(log.records.count) next_seq=\(log.nextSequence) dropped=\(log.dropped)"
        board?.log("I", "LOG", "filled \(count) \(state)")
        advertisedStateChanged()
    }

    func setLED(_ on: Bool) {
        ledOn = on
        board?.log("I", "LED", on ? "on" : "off")
    }
}
