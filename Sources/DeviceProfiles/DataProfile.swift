import BLECore

/// A board described as data (a profile file, docs/profiles.md): how it advertises, its GATT table, what the
/// central subscribes to before the board is ready, its periodic notification, its commands and its console.
///
/// The generic suites read it to test a board whose firmware does not speak one of the built-in contracts, and the
/// virtual farm serves it, so a rig runs before the firmware exists. The loader (`ProfileFile` in the orchestrator)
/// builds it from YAML and checks it whole; a value built in code is taken as it is.
public struct DataProfile: Hashable, Sendable {
    /// The profile's name in reports and check names (`my-sensor`).
    public var name: String
    public var advertising: Advertising
    /// The GATT table; what is `required` must be present on the board.
    public var services: [Service]
    /// Characteristics subscribed by the handshake: the board is ready when these are on.
    public var ready: [BluetoothUUID]
    /// The periodic notification the `notifications` suite listens to, if the board has one.
    public var periodic: Periodic?
    /// The writes the `commands` suite sends, each with what it must cause.
    public var commands: Commands?
    public var console: Console
    /// What the virtual farm's model of the board does beyond the table (boot time, firmware version).
    public var simulation: Simulation

    public init(
        name: String, advertising: Advertising, services: [Service], ready: [BluetoothUUID] = [],
        periodic: Periodic? = nil, commands: Commands? = nil, console: Console = Console(),
        simulation: Simulation = Simulation()
    ) {
        self.name = name
        self.advertising = advertising
        self.services = services
        self.ready = ready
        self.periodic = periodic
        self.commands = commands
        self.console = console
        self.simulation = simulation
    }

    /// How the board advertises. Unset fields are not checked.
    public struct Advertising: Hashable, Sendable {
        /// The local name, exact or with `*` (any text) and `{addr4}` (the address's last two bytes in lower-case
        /// hex); nil: not checked.
        public var name: NamePattern?
        /// Service UUIDs that must be in the advertising data or the scan response.
        public var serviceUUIDs: [BluetoothUUID]
        /// A company identifier whose manufacturer data must be present.
        public var manufacturerID: UInt16?
        /// The manufacturer data the virtual board sends after the company identifier.
        public var manufacturerData: [UInt8]
        /// The exact Flags octet; nil: not checked.
        public var flags: UInt8?

        public init(
            name: NamePattern? = nil, serviceUUIDs: [BluetoothUUID] = [], manufacturerID: UInt16? = nil,
            manufacturerData: [UInt8] = [], flags: UInt8? = nil
        ) {
            self.name = name
            self.serviceUUIDs = serviceUUIDs
            self.manufacturerID = manufacturerID
            self.manufacturerData = manufacturerData
            self.flags = flags
        }
    }

    public struct Service: Hashable, Sendable {
        public var uuid: BluetoothUUID
        public var name: String?
        public var required: Bool
        public var characteristics: [Characteristic]

        public init(_ uuid: BluetoothUUID, name: String? = nil, required: Bool = true, characteristics: [Characteristic]) {
            self.uuid = uuid
            self.name = name
            self.required = required
            self.characteristics = characteristics
        }
    }

    public struct Characteristic: Hashable, Sendable {
        public var uuid: BluetoothUUID
        public var name: String?
        /// The properties the board must declare (it may declare more).
        public var properties: GATT.CharacteristicProperties
        public var required: Bool
        /// Descriptors (besides the CCCD, which notify and indicate imply) that must be present.
        public var descriptors: [Descriptor]
        /// The value a read returns on the virtual board (a periodic or codec value is produced live instead).
        public var value: [UInt8]?
        /// A value the virtual board serves with a standard codec (battery level drains, body sensor location).
        public var codec: StandardCodec?

        public init(
            _ uuid: BluetoothUUID, name: String? = nil, properties: GATT.CharacteristicProperties, required: Bool = true,
            descriptors: [Descriptor] = [], value: [UInt8]? = nil, codec: StandardCodec? = nil
        ) {
            self.uuid = uuid
            self.name = name
            self.properties = properties
            self.required = required
            self.descriptors = descriptors
            self.value = value
            self.codec = codec
        }
    }

    public struct Descriptor: Hashable, Sendable {
        public var uuid: BluetoothUUID
        /// The value the virtual board serves (a User Description's text as UTF-8).
        public var value: [UInt8]

        public init(_ uuid: BluetoothUUID, value: [UInt8] = []) {
            self.uuid = uuid
            self.value = value
        }
    }

    /// A notification the board sends on its own at a steady rate.
    public struct Periodic: Hashable, Sendable {
        public var characteristic: BluetoothUUID
        /// Its name in the check `<name> rate and gaps`.
        public var name: String
        /// The expected rate; the suite counts gaps longer than 1.5 periods.
        public var rateHz: Double
        public var decoder: ValueDecoder
        /// Decoded values outside this range fail the check; nil: any value the decoder accepts.
        public var range: ClosedRange<Double>?

        public init(
            characteristic: BluetoothUUID, name: String, rateHz: Double, decoder: ValueDecoder,
            range: ClosedRange<Double>? = nil
        ) {
            self.characteristic = characteristic
            self.name = name
            self.rateHz = rateHz
            self.decoder = decoder
            self.range = range
        }

        public var period: Duration { .nanoseconds(Int64((1_000_000_000 / rateHz).rounded())) }
    }

    /// The `commands` suite's one check: every write in order, `repetitions` times.
    public struct Commands: Hashable, Sendable {
        /// The check's name (`light on/off`).
        public var check: String
        public var writes: [Command]

        public init(check: String, writes: [Command]) {
            self.check = check
            self.writes = writes
        }
    }

    /// One write and what it must cause.
    public struct Command: Hashable, Sendable {
        public var name: String
        public var characteristic: BluetoothUUID
        public var bytes: [UInt8]
        /// Write Command instead of Write Request (no response to wait for).
        public var withoutResponse: Bool
        public var expect: Expectation
        /// How long the response and the notification may take.
        public var within: Duration

        public init(
            name: String, characteristic: BluetoothUUID, bytes: [UInt8], withoutResponse: Bool = false,
            expect: Expectation = Expectation(), within: Duration = .seconds(1)
        ) {
            self.name = name
            self.characteristic = characteristic
            self.bytes = bytes
            self.withoutResponse = withoutResponse
            self.expect = expect
            self.within = within
        }
    }

    /// What a command must cause: a Write Response or an ATT error, and optionally a notification.
    public struct Expectation: Hashable, Sendable {
        /// The ATT error code the write must fail with; nil: it must succeed.
        public var error: UInt8?
        public var notification: ExpectedNotification?

        public init(error: UInt8? = nil, notification: ExpectedNotification? = nil) {
            self.error = error
            self.notification = notification
        }
    }

    public struct ExpectedNotification: Hashable, Sendable {
        public var characteristic: BluetoothUUID
        /// The exact value; nil: any value.
        public var bytes: [UInt8]?

        public init(characteristic: BluetoothUUID, bytes: [UInt8]? = nil) {
            self.characteristic = characteristic
            self.bytes = bytes
        }
    }

    /// Regular expressions over console lines. The defaults are the board contract's `BOOT` and `READY` lines.
    public struct Console: Hashable, Sendable {
        /// A boot banner; a named group `reset` (POWERON, SW, EXT, BROWNOUT, PANIC) gives the reset reason.
        public var boot: String
        public var ready: String
        /// Lines that report an error.
        public var errors: [String]
        /// What the virtual board prints at boot and when ready; `{fw}`, `{reset}`, `{boot_id}`, `{name}` and
        /// `{addr}` are filled in. Each must match its pattern.
        public var bootLine: String
        public var readyLine: String

        public static let contractBoot = #"^BOOT fw=\S+ (bank=\S+ )?reset=(?<reset>[A-Z]+) boot_id=[0-9a-f]{8}$"#
        public static let contractReady = #"^READY name=\S+ addr=\S+"#
        public static let contractBootLine = "BOOT fw={fw} reset={reset} boot_id={boot_id}"
        public static let contractReadyLine = "READY name={name} addr={addr}"

        public init(
            boot: String = contractBoot, ready: String = contractReady, errors: [String] = [],
            bootLine: String = contractBootLine, readyLine: String = contractReadyLine
        ) {
            self.boot = boot
            self.ready = ready
            self.errors = errors
            self.bootLine = bootLine
            self.readyLine = readyLine
        }

        /// Whether the boot banner says why the board reset (a power-on reset can then be checked).
        public var bootTellsReset: Bool { boot.contains("(?<reset>") }
    }

    /// The virtual board's behaviour beyond the table.
    public struct Simulation: Hashable, Sendable {
        public var firmware: FirmwareVersion
        public var bootDuration: Duration
        public var maximumMTU: UInt16
        /// The manufacturer's OUI for the board's derived public address.
        public var oui: UInt32

        public init(
            firmware: FirmwareVersion = FirmwareVersion(1, 0, 0), bootDuration: Duration = .milliseconds(500),
            maximumMTU: UInt16 = 247, oui: UInt32 = 0x02_B1E0
        ) {
            self.firmware = firmware
            self.bootDuration = bootDuration
            self.maximumMTU = maximumMTU
            self.oui = oui
        }
    }

    /// Every characteristic with its service, in table order.
    public var allCharacteristics: [(service: BluetoothUUID, characteristic: Characteristic)] {
        services.flatMap { service in service.characteristics.map { (service.uuid, $0) } }
    }

    /// Whether the board measures heart rate (its notification or a characteristic uses the standard codec): the
    /// virtual board then follows the rig's heart-rate pattern.
    public var measuresHeartRate: Bool {
        periodic?.decoder == .codec(.heartRateMeasurement)
            || allCharacteristics.contains { $0.characteristic.codec == .heartRateMeasurement }
    }

    /// The service that holds `characteristic`, and its definition.
    public func characteristic(_ uuid: BluetoothUUID) -> (service: BluetoothUUID, characteristic: Characteristic)? {
        allCharacteristics.first { $0.characteristic.uuid == uuid }
    }
}
