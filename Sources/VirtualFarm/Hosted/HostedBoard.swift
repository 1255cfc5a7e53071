import BLECore
import BenchCore
import DeviceProfiles

/// One board model — the virtual farm's firmware and hardware for a profile, unchanged — standing on a radio the host
/// provides instead of the farm's modelled air: typically a controller of its own reached over HCI, so that a
/// central on another controller finds it, connects, and runs the profile against it as against a real board.
///
/// The board lives in a ``Simulation``, on the wall clock (``Simulation/runOnWallClock(seed:_:)``) when its radio
/// is real, so that its timers (boot, sampling, battery, heart beats) keep real time. It advertises through its
/// ``BoardRadio``, which it calls whenever its advertising set changes: at READY, when the firmware's advertised
/// state changes, when a central connects (nil: it stops) and after the link goes down, and when it halts. The host
/// hands it each new connection with ``accept(_:)``, as a ``PeripheralBearer`` that carries ATT PDUs both ways.
///
/// Threading: the board is confined to its simulation's thread. Create it there and use every member there (its
/// entry points trap otherwise), and call the handlers it attaches to a bearer there too. From any other thread — an I/O thread
/// reading the controller — go through ``Simulation/post(_:)``, which may be called from anywhere:
///
/// ```swift
/// sim.post { board.accept(bearer) }
/// ```
public final class HostedBoard: @unchecked Sendable {
    // @unchecked Sendable: confined to the simulation thread (the board model asserts it on every entry point); a
    // host captures it in the actions it posts there.
    let model: VirtualBoard

    /// A board of `profile` running the rig's test firmware, powered off, on `radio`. `address` is its public
    /// address, from which the firmware takes its serial number and advertised name (`settings.address` is not
    /// consulted); `id` names it in messages and in the seeded streams its behaviour draws from.
    public init(
        profile: Profile, id: String, address: DeviceAddress, settings: VirtualBoardSettings = VirtualBoardSettings(),
        sim: Simulation, radio: any BoardRadio
    ) {
        sim.assertIsolated()
        let firmware = FirmwareCatalog.firmware(for: profile, settings: settings, seed: sim.seed, id: id)
        model = VirtualBoard(id: id, address: address, settings: settings, firmware: firmware, sim: sim, radio: radio)
    }

    public var id: String { model.id }
    public var address: DeviceAddress { model.address }
    public var profile: Profile { model.profile }
    public var settings: VirtualBoardSettings { model.settings }
    public var firmwareVersion: FirmwareVersion { model.firmwareVersion }
    /// The simulation the board lives in.
    public var simulation: Simulation { model.sim }

    // MARK: Power and resets

    public var isPowered: Bool { model.isPowered }
    /// When the current boot printed `READY`; nil while off, booting or in the bootloader.
    public var readyAt: RigInstant? { model.readyAt }
    /// Boots started since the board was made.
    public var bootCount: Int { model.bootCount }
    /// True while the chip waits in its ROM bootloader.
    public var inBootloader: Bool { model.inBootloader }

    /// Switches the power on: the board boots with `reset=POWERON`, prints READY after its boot time, and advertises.
    public func powerOn() { model.powerOn() }

    /// Cuts the power: the board stops advertising, its link vanishes (``PeripheralBearer/vanish()``), RAM is lost.
    public func powerOff() { model.powerOff() }

    /// Resets the chip without cutting its power (the EN line, a watchdog): its link vanishes, RAM is lost, and it
    /// boots again with `reason`.
    public func reset(_ reason: ConsoleLine.ResetReason = .external) { model.reset(reason) }

    /// Resets into the ROM bootloader (IO0 held low): the board prints the ROM's lines, does not advertise, and
    /// waits there until the next reset or power cycle.
    public func enterBootloader() { model.enterBootloader() }

    // MARK: Advertising and connections

    /// What the board advertises now, as it last told its radio; nil while it does not advertise.
    public var advertising: AdvertisingState? { model.advertising }

    /// The advertising data and scan response the firmware would advertise in its current state, advertising or not.
    public var advertisingData: (data: AdvertisingData, scanResponse: AdvertisingData) {
        model.firmware.advertisingData(address: model.address)
    }

    /// The name the firmware advertises and prints in its `READY` line.
    public var advertisedName: String { model.firmware.advertisedName(address: model.address) }

    /// A central connected through the board's radio: the board stops advertising, attaches its handlers to
    /// `bearer` and serves its GATT table there until the link goes down, after which it advertises again. A board
    /// that is off, booting, in its bootloader or already connected ignores the connection and never attaches to
    /// the bearer; the host then ends it.
    public func accept(_ bearer: any PeripheralBearer) { model.accept(bearer) }

    /// True while a central is connected.
    public var isConnected: Bool { model.isConnected }

    /// Notifications dropped because the bearer had no transmit buffer free (``PeripheralBearer/canSend``).
    public var notificationsDropped: Int { model.notificationsDropped }

    // MARK: Console

    /// The latest lines the board printed (at most ``VirtualBoard/consoleHistoryLimit``), with their instants.
    public var console: [(at: RigInstant, line: ConsoleLine)] { model.console }

    /// Delivers every console line from now on to `handler`, on the simulation thread, stamped with its instant and
    /// the boot it belongs to, as a bench's console presents it. One handler at a time: attaching another replaces
    /// it. Attach before ``powerOn()`` so that the boot banner is not missed.
    public func attachConsole(_ handler: @escaping (ConsoleEntry) -> Void) {
        model.sim.assertIsolated()
        var tracker = BootTracker()
        model.consoleListener = { at, line in handler(tracker.entry(line.description, at: at)) }
    }

    /// A line typed on the board's serial console (`status`, `reboot`, `pair`, …); it takes effect at once.
    public func type(_ line: String) { model.type(line) }
}
