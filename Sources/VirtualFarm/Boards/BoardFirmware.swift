import BLECore
import DeviceProfiles

/// The firmware of a virtual board: its GATT table, what it advertises, and its live behaviour. A
/// ``VirtualBoard`` is the hardware around it (power, radio, serial console) and calls in here; the firmware
/// reaches back through the board it is given at boot.
///
/// The GATT server calls the ``GATTServerApplication`` methods synchronously while it handles a PDU; values the
/// firmware pushes from inside them (``VirtualBoard/notify(_:in:_:)``) go out once the server is done, after the
/// response to that PDU.
///
/// Everything here runs on the simulation thread.
protocol BoardFirmware: AnyObject, GATTServerApplication {
    var profile: Profile { get }
    var version: FirmwareVersion { get }
    /// The flash bank the firmware runs from, on boards with two (esp-point); nil otherwise.
    var bank: AppBank? { get }
    /// Milliseconds from reset to `READY` (the ROM bootloader, the app's init, the BLE stack).
    var bootDuration: Duration { get }
    /// The largest ATT_MTU the board's BLE stack accepts.
    var maximumMTU: UInt16 { get }

    /// The GATT table, built once per boot.
    func services() -> [GATTServer.Service]

    /// The advertising data and scan response for the board's current state.
    func advertisingData(address: DeviceAddress) -> (data: AdvertisingData, scanResponse: AdvertisingData)

    /// The name in the `READY` line.
    func advertisedName(address: DeviceAddress) -> String

    /// The chip came out of reset: the bootloader's moment, before the `BOOT` line (a board with two banks picks
    /// the one to run).
    func bootloader(on board: VirtualBoard, reason: ConsoleLine.ResetReason)

    /// False when the bootloader found nothing to start: the board prints no `BOOT` line and never comes up.
    var bootable: Bool { get }

    /// The power went: tear the flash write under way, if any; returns what was torn, for the record.
    func powerLost() -> [String]

    /// The board finished booting and its GATT server is up: start timers, set initial values.
    func booted(on board: VirtualBoard, reason: ConsoleLine.ResetReason)

    /// A central connected or its link went down.
    func connected(_ connection: GATTServer.ConnectionID)
    func disconnected(_ connection: GATTServer.ConnectionID)

    /// A line typed on the serial console; returns false when the firmware does not know the command.
    func consoleCommand(_ words: [Substring]) -> Bool

    /// The first line after reset and the line when the BLE stack is up: the contract's `BOOT` and `READY`, unless
    /// the firmware prints its own (a described board's banner).
    func bootLine(reset: ConsoleLine.ResetReason, bootID: UInt32, address: DeviceAddress) -> ConsoleLine
    func readyLine(address: DeviceAddress) -> ConsoleLine
}

extension BoardFirmware {
    var bank: AppBank? { nil }
    var maximumMTU: UInt16 { 247 }
    func bootloader(on board: VirtualBoard, reason: ConsoleLine.ResetReason) {}
    var bootable: Bool { true }
    func powerLost() -> [String] { [] }
    func connected(_ connection: GATTServer.ConnectionID) {}
    func disconnected(_ connection: GATTServer.ConnectionID) {}
    func consoleCommand(_ words: [Substring]) -> Bool { false }

    func bootLine(reset: ConsoleLine.ResetReason, bootID: UInt32, address: DeviceAddress) -> ConsoleLine {
        .boot(firmware: version, bank: bank?.name, reset: reset, bootID: bootID)
    }

    func readyLine(address: DeviceAddress) -> ConsoleLine {
        .ready(name: advertisedName(address: address), address: address)
    }
}

/// The rig's test firmware for each profile: what the farm's boards and hosted boards run.
enum FirmwareCatalog {
    /// A new firmware of `profile` for the board `id`: its behaviour (sensors, heart rate) draws from `seed` in
    /// streams named after the board.
    static func firmware(
        for profile: Profile, settings: VirtualBoardSettings, seed: UInt64, id: String
    ) -> any BoardFirmware {
        switch profile {
        case .espPoint: EspPointFirmware(settings: settings, seed: seed, id: id)
        case .nano33BLESense: Nano33Firmware(settings: settings, seed: seed, id: id)
        case .hrm: HRMFirmware(settings: settings, seed: seed, id: id)
        case .described(let data): DescribedFirmware(data, settings: settings, seed: seed, id: id)
        }
    }
}

/// Hands the GATT server's calls to a firmware object (the server takes its application `inout`).
struct FirmwareApplication: GATTServerApplication {
    // A class reference: the mutating calls below reach the one firmware object.
    var firmware: any BoardFirmware

    mutating func read(_ access: GATTServer.Access) -> Result<[UInt8], ATT.ErrorCode> { firmware.read(access) }

    mutating func write(_ value: [UInt8], kind: GATTServer.WriteKind, _ access: GATTServer.Access) -> ATT.ErrorCode? {
        firmware.write(value, kind: kind, access)
    }

    mutating func clientConfigurationChanged(_ configuration: GATT.ClientConfiguration, _ access: GATTServer.Access) {
        firmware.clientConfigurationChanged(configuration, access)
    }

    mutating func indicationConfirmed(_ access: GATTServer.Access) { firmware.indicationConfirmed(access) }
}
