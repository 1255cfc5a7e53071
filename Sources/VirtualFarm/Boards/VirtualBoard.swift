import BLECore
import DeviceProfiles

/// One simulated board: the hardware around a ``BoardFirmware`` — power, a radio, a GATT server, and a serial
/// console. It boots with the console lines of docs/board-contract.md, advertises, takes one central at a time, and
/// loses everything in RAM (links, subscriptions, timers) when it is reset or loses power.
///
/// Its radio is a ``BoardRadio``: the ``VirtualAir`` on the virtual farm, or a controller of its own when it is
/// hosted on a real radio (``HostedBoard``). Either way its connections reach it as ``PeripheralBearer``s.
///
/// Whatever a central sends, the board answers through BLECore's GATT server; nothing a peer does makes it trap.
public final class VirtualBoard: AirPeripheral, @unchecked Sendable {
    // @unchecked Sendable: confined to the simulation thread; entry points assert it.

    public let id: String
    public let address: DeviceAddress
    public let settings: VirtualBoardSettings
    let sim: Simulation
    let radio: any BoardRadio
    let firmware: any BoardFirmware

    public var profile: Profile { firmware.profile }
    public var firmwareVersion: FirmwareVersion { firmware.version }

    public private(set) var advertising: AdvertisingState?
    public private(set) var isPowered = false
    /// Boots started since the simulation began.
    public private(set) var bootCount = 0
    /// When the current boot reached `READY`; nil while off or booting.
    public private(set) var readyAt: RigInstant?
    /// Notifications the board could not queue because the link's transmit buffers were full (dropped, as the
    /// ESP-IDF and ArduinoBLE stacks do when congested).
    public private(set) var notificationsDropped = 0
    /// The latest lines the board printed on its serial console (at most ``consoleHistoryLimit``), with the
    /// instant each was printed. The whole console goes to ``consoleListener``; this is for tests and peeking.
    public private(set) var console: [(at: RigInstant, line: ConsoleLine)] = []
    /// How many console lines ``console`` keeps: a board that logs for days must not fill memory.
    public static let consoleHistoryLimit = 4096
    /// True while the chip sits in its ROM bootloader waiting to be flashed (after a download-mode reset).
    public private(set) var inBootloader = false
    /// The flash writes the last power loss tore (the region and how far it had got), for fault campaigns.
    public private(set) var tornAtLastPowerLoss: [String] = []
    /// Told of every console line as it is printed.
    public var consoleListener: ((RigInstant, ConsoleLine) -> Void)?

    private(set) var server: GATTServer?
    private var links: [GATTServer.ConnectionID: any PeripheralBearer] = [:]
    /// Bumped at every reset and power loss: timers of an earlier boot find it changed and do nothing.
    private var generation = 0
    private var bootStartedAt = RigInstant.origin
    /// True while the GATT server is handling a PDU; pushes wait in `deferred` until it is done.
    private var serving = false
    private var deferred: [() -> Void] = []
    /// The ATT_MTU of the connection whose PDU is being served (the server cannot be asked while it serves).
    private var servingMTU = ATT.defaultMTU

    /// A board on `radio`, inside `sim`; it starts powered off. The caller adds it to the radio if the radio keeps a
    /// list (``VirtualAir/add(_:)``).
    init(
        id: String, address: DeviceAddress, settings: VirtualBoardSettings, firmware: any BoardFirmware,
        sim: Simulation, radio: any BoardRadio
    ) {
        self.id = id
        self.address = address
        self.settings = settings
        self.firmware = firmware
        self.sim = sim
        self.radio = radio
    }

    /// A board on the virtual farm's air.
    convenience init(
        id: String, address: DeviceAddress, settings: VirtualBoardSettings, firmware: any BoardFirmware, air: VirtualAir
    ) {
        self.init(id: id, address: address, settings: settings, firmware: firmware, sim: air.sim, radio: air)
    }

    // MARK: Power and resets

    /// Switches the board's power on; it boots with `reset=POWERON`.
    public func powerOn() {
        sim.assertIsolated()
        guard !isPowered else { return }
        isPowered = true
        boot(.powerOn)
    }

    /// Cuts the power: links vanish (each central notices after its supervision timeout), RAM is lost.
    public func powerOff() {
        sim.assertIsolated()
        guard isPowered else { return }
        tornAtLastPowerLoss = firmware.powerLost()
        halt()
        isPowered = false
        inBootloader = false
    }

    /// Resets the chip (the EN line, a REBOOT command, a watchdog); the board boots again with `reason`.
    public func reset(_ reason: ConsoleLine.ResetReason) {
        sim.assertIsolated()
        guard isPowered else { return }
        halt()
        inBootloader = false
        boot(reason)
    }

    /// Resets the chip with its boot strap pin held (IO0 low on an ESP32): the ROM bootloader starts instead of
    /// the application and waits to be flashed. It prints what an ESP32's ROM prints, does not advertise, and
    /// stays there until the next reset or power cycle.
    public func enterBootloader() {
        sim.assertIsolated()
        guard isPowered else { return }
        halt()
        generation += 1
        inBootloader = true
        print(.other("rst:0x1 (POWERON_RESET),boot:0x3 (DOWNLOAD_BOOT(UART0/UART1/SDIO_REI_REO_V2))"))
        print(.other("waiting for download"))
    }

    private func halt() {
        generation += 1
        for link in links.values { link.vanish() }
        links.removeAll()
        server = nil
        readyAt = nil
        deferred.removeAll()
        setAdvertising(nil)
    }

    private func boot(_ reason: ConsoleLine.ResetReason) {
        generation += 1
        bootCount += 1
        bootStartedAt = sim.now
        let boot = generation
        firmware.bootloader(on: self, reason: reason)
        // Nothing to start: the chip sits in its bootloader; no BOOT line, no advertising.
        guard firmware.bootable else { return }
        var random = random("boot")
        let bootID = UInt32(truncatingIfNeeded: random.next())
        // The ROM bootloader prints within a few milliseconds of reset; the app is ready after its init.
        after(.milliseconds(2), generation: boot) { [self] in
            print(firmware.bootLine(reset: reason, bootID: bootID, address: address))
        }
        after(firmware.bootDuration, generation: boot) { [self] in finishBoot(reason) }
    }

    private func finishBoot(_ reason: ConsoleLine.ResetReason) {
        do {
            server = try GATTServer(
                services: firmware.services(), configuration: .init(maximumMTU: firmware.maximumMTU))
        } catch {
            log(.error, "GATT", "the GATT table was rejected: \(error)")
            return
        }
        readyAt = sim.now
        let boot = generation
        firmware.booted(on: self, reason: reason)
        // The firmware may reset the chip during its init (a failed self-test rolls back).
        guard generation == boot else { return }
        print(firmware.readyLine(address: address))
        startAdvertising()
    }

    // MARK: Advertising

    private func startAdvertising() {
        guard settings.advertises, server != nil, links.isEmpty else { return setAdvertising(nil) }
        let (data, scanResponse) = firmware.advertisingData(address: address)
        setAdvertising(
            AdvertisingState(
                data: data, scanResponse: scanResponse,
                interval: settings.advertisingInterval ?? radio.defaultAdvertisingInterval, since: sim.now,
                rssi: settings.rssi))
    }

    /// The firmware's advertised state changed (flags in the manufacturer data): advertise the new data from
    /// the next advertising event on.
    func refreshAdvertising() {
        guard var state = advertising else { return }
        (state.data, state.scanResponse) = firmware.advertisingData(address: address)
        setAdvertising(state)
    }

    private func setAdvertising(_ state: AdvertisingState?) {
        guard state != advertising else { return }
        advertising = state
        radio.setAdvertising(state, of: address)
    }

    // MARK: Connections

    /// A central connected: the board stops advertising and serves it on `link` from now on. Off, booting or
    /// already connected, the board ignores it (on the air, the central's attempt then fails).
    public func accept(_ link: any PeripheralBearer) {
        sim.assertIsolated()
        guard server != nil, links.isEmpty else { return }
        let connection = GATTServer.ConnectionID(rawValue: link.handle)
        let boot = generation
        links[connection] = link
        server?.connect(connection)
        setAdvertising(nil)
        link.attach(
            receive: { [weak self] pdu in
                guard let self, generation == boot else { return }
                receive(pdu, from: connection)
            },
            down: { [weak self] reason in
                guard let self, generation == boot else { return }
                linkDown(connection, reason: reason)
            })
        let interval = link.connectionInterval.map { " interval_ms=\($0.milliseconds)" } ?? ""
        log(.info, "BLE", "connected handle=0x\(String(link.handle, radix: 16))\(interval)")
        firmware.connected(connection)
    }

    private func receive(_ pdu: [UInt8], from connection: GATTServer.ConnectionID) {
        guard server != nil else { return }
        var application = FirmwareApplication(firmware: firmware)
        servingMTU = server!.mtu(of: connection)
        serving = true
        let actions = server!.receive(pdu, from: connection, application: &application)
        serving = false
        perform(actions, notification: false)
        let work = deferred
        deferred.removeAll()
        for item in work { item() }
    }

    private func linkDown(_ connection: GATTServer.ConnectionID, reason: HCIErrorCode) {
        guard links.removeValue(forKey: connection) != nil else { return }
        server?.disconnect(connection)
        log(.info, "BLE", "disconnected reason=0x\(String(reason.rawValue, radix: 16))")
        firmware.disconnected(connection)
        startAdvertising()
    }

    /// Closes every link from the board's side (0x13 at the central).
    func disconnectAll(reason: HCIErrorCode = .remoteUserTerminated) {
        for link in links.values { link.terminate(reason: reason) }
    }

    public var isConnected: Bool { !links.isEmpty }

    private func perform(_ actions: [GATTServer.Action], notification: Bool) {
        for case let .send(pdu, to: connection) in actions {
            guard let link = links[connection] else { continue }
            if notification, !link.canSend {
                notificationsDropped += 1
                continue
            }
            link.send(pdu)
        }
    }

    // MARK: For the firmware

    /// The value handle of a characteristic of this board's table.
    func valueHandle(_ characteristic: BluetoothUUID, in service: BluetoothUUID) -> UInt16? {
        server?.database.valueHandle(service: service, characteristic: characteristic)
    }

    /// Notifies subscribers of a characteristic; dropped for a link whose buffers are full.
    func notify(_ characteristic: BluetoothUUID, in service: BluetoothUUID, _ value: [UInt8]) {
        push(characteristic, in: service, value, indication: false)
    }

    /// Indicates to subscribers; the server queues indications until each is confirmed.
    func indicate(_ characteristic: BluetoothUUID, in service: BluetoothUUID, _ value: [UInt8]) {
        push(characteristic, in: service, value, indication: true)
    }

    private func push(_ characteristic: BluetoothUUID, in service: BluetoothUUID, _ value: [UInt8], indication: Bool) {
        if serving {
            deferred.append { [self] in push(characteristic, in: service, value, indication: indication) }
            return
        }
        guard server != nil, let handle = valueHandle(characteristic, in: service) else { return }
        let actions = indication ? server!.indicate(handle, value: value) : server!.notify(handle, value: value)
        perform(actions, notification: !indication)
    }

    /// The firmware's GATT table changed while the board runs (``BoardFirmware/services()`` now gives another
    /// table): the server takes the new one, so its Database Hash changes, connected clients become
    /// change-unaware and those subscribed to Service Changed get its indication (robust caching).
    func tableChanged() {
        if serving {
            deferred.append { [self] in tableChanged() }
            return
        }
        guard server != nil else { return }
        do {
            let database = try GATTServer.Database(services: firmware.services())
            perform(server!.replaceDatabase(database), notification: false)
            log(.info, "GATT", "table changed: \(database.attributeCount) attributes, Service Changed indicated")
        } catch {
            log(.error, "GATT", "the new GATT table was rejected: \(error)")
        }
    }

    /// Replaces a stored value (what the next read returns).
    func setValue(_ value: [UInt8], of characteristic: BluetoothUUID, in service: BluetoothUUID) {
        if serving {
            deferred.append { [self] in setValue(value, of: characteristic, in: service) }
            return
        }
        guard let handle = valueHandle(characteristic, in: service) else { return }
        server?.setValue(value, for: handle)
    }

    /// True when some central subscribed to the characteristic.
    func hasSubscribers(_ characteristic: BluetoothUUID, in service: BluetoothUUID) -> Bool {
        guard let server, let handle = valueHandle(characteristic, in: service) else { return false }
        return !server.subscribers(handle, for: .notifications).isEmpty
            || !server.subscribers(handle, for: .indications).isEmpty
    }

    /// The ATT_MTU of a connection (23 until the central exchanges MTUs).
    func mtu(of connection: GATTServer.ConnectionID) -> UInt16 {
        if serving { return servingMTU }
        return server?.mtu(of: connection) ?? ATT.defaultMTU
    }

    /// True while a notification pushed now would be queued on the connection's link rather than dropped.
    func canNotify(on connection: GATTServer.ConnectionID) -> Bool { links[connection]?.canSend ?? false }

    /// Runs `action` after `delay`, unless the board resets or loses power first.
    func after(_ delay: Duration, _ action: @escaping () -> Void) {
        after(delay, generation: generation, action)
    }

    /// Runs `action` at `instant` (at once if it has passed), unless the board resets or loses power first.
    ///
    /// For an instant the model computed (a flash write's end): `after(now.duration(to: instant))` would count the
    /// delay from a `now` read earlier, and on the wall clock time moves while the handler runs, so the timer would
    /// fire late by however long the handler took since, and two such timers could fire out of order.
    func at(_ instant: RigInstant, _ action: @escaping () -> Void) {
        let boot = generation
        sim.schedule(at: instant) { [weak self] in
            guard let self, generation == boot else { return }
            action()
        }
    }

    private func after(_ delay: Duration, generation boot: Int, _ action: @escaping () -> Void) {
        sim.schedule(after: delay) { [weak self] in
            guard let self, generation == boot else { return }
            action()
        }
    }

    /// Runs `action` every `interval` from now on, until the board resets or loses power.
    func every(_ interval: Duration, _ action: @escaping () -> Void) {
        after(interval) { [weak self] in
            action()
            self?.every(interval, action)
        }
    }

    /// Milliseconds since the current boot started.
    var uptime: Duration { bootStartedAt.duration(to: sim.now) }

    /// A random stream private to this board and boot, from the run's seed.
    func random(_ stream: String) -> SeededRandom {
        SeededRandom(seed: sim.seed, stream: "board/\(id)/\(bootCount)/\(stream)")
    }

    /// Prints `[uptime_ms] LEVEL/TAG: message` on the console.
    func log(_ level: ConsoleLogLevel, _ tag: String, _ message: String) {
        print(
            .log(
                uptimeMilliseconds: UInt64(uptime.milliseconds.rounded(.down)), level: level.letter, tag: tag,
                message: message))
    }

    func print(_ line: ConsoleLine) {
        if console.count >= Self.consoleHistoryLimit { console.removeFirst(Self.consoleHistoryLimit / 4) }
        console.append((sim.now, line))
        consoleListener?(sim.now, line)
    }

    // MARK: Console input

    /// A line typed on the board's serial console (docs/board-contract.md, "The serial console": `status`, `reboot`,
    /// `pair`, …).
    public func type(_ line: String) {
        sim.assertIsolated()
        guard isPowered, !inBootloader, server != nil else { return }
        let words = line.split(separator: " ")
        switch words.first {
        case nil: return
        case "status":
            log(.info, "SYS",
                "status fw=\(firmware.version) uptime_ms=\(Int(uptime.milliseconds)) connected=\(links.count)")
        case "reboot": reset(.software)
        default:
            if !firmware.consoleCommand(words) { log(.warning, "CONSOLE", "unknown command '\(line)'") }
        }
    }
}
