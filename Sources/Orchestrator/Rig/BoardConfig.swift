import BLECore
import BenchCore
import DeviceProfiles

/// One board of a rig: an entry of `boards:` in the rig file.
///
/// ```yaml
/// - id: esp-01                                   # unique, letters, digits, '-' and '_'
///   profile: esp-point                           # esp-point | nano33-ble-sense | hrm
///   match: {name: ESP-Point-1a2b}                # and/or address; required unless the radio is virtual
///   serial: {port: /dev/ttyUSB0, baud: 115200, reset: esp32-classic}   # or reset: "R1|W0.1|R0"
///   power: {hub: "1-1.4", port: 2}
///   virtual: {advertising: true, battery_percent: 80}   # simulation settings, see BoardConfig.VirtualSettings
///   radio: r1                                    # optional: the id of the radio that reaches this board
/// ```
/// `serial` and `power` are allowed on a virtual rig and unused there, and `virtual` is allowed on a hardware rig
/// and unused there, so one board list can describe a bench and its virtual twin.
public struct BoardConfig: Hashable, Sendable {
    /// How the central recognises the board on the air. At least one of the two is set.
    public struct Match: Hashable, Sendable {
        /// The advertised local name, matched exactly.
        public var name: String?
        /// The device address (`24:0A:C4:12:1A:2B`, `... (random)` or `.../random` for a random address).
        public var address: DeviceAddress?
        public var location: SourceLocation

        public init(name: String? = nil, address: DeviceAddress? = nil, at location: SourceLocation) {
            self.name = name
            self.address = address
            self.location = location
        }
    }

    /// The board's serial console, also used to reset it.
    public struct Serial: Hashable, Sendable {
        /// How the rig resets the board through the serial port (device-profiles.md, "Resets and power"): a preset
        /// (`esp32-classic`, `esp32-unix-tight`, `esp32-usb-jtag`, `hard-reset`, `run-only`, `arduino-1200-touch`,
        /// `dtr-pulse`), `none`, or a sequence in esptool's grammar (`"R1|W0.25|R0"`, the board's run reset).
        public typealias Reset = ResetWiring

        public static let defaultBaud = 115_200

        /// The reset sequence a board gets when `reset` is not written: esp32-classic for an esp-point, none for
        /// the others (the Nano's 1200-baud touch enters its bootloader: choose it explicitly, to flash).
        public static func defaultReset(for profile: Profile) -> Reset {
            profile == .espPoint ? .esp32Classic : .none
        }
        public static let baudRange = 300...4_000_000

        /// Where the port is: a device path (prefer the stable `/dev/serial/by-id/...` names), or what survives
        /// re-enumeration (`usb:1-1.4:1.0`, `serial:5A4B3C2D`, `id:303a:1001`); see ``SerialPortName``.
        public var port: String
        public var baud: Int
        public var reset: Reset
        public var location: SourceLocation

        public init(port: String, baud: Int = Serial.defaultBaud, reset: Reset, at location: SourceLocation) {
            self.port = port
            self.baud = baud
            self.reset = reset
            self.location = location
        }
    }

    /// The USB hub port that powers the board, switched per port (uhubctl's location and port numbering).
    public struct Power: Hashable, Sendable {
        public static let portRange = 1...255

        /// The hub's location: bus, then the port path, `1-1.4`.
        public var hub: String
        /// The port on that hub, from 1.
        public var port: Int
        public var location: SourceLocation

        public init(hub: String, port: Int, at location: SourceLocation) {
            self.hub = hub
            self.port = port
            self.location = location
        }

        /// `1`, `1-1`, `1-1.4`, `2-3.1.2`: a bus number, then optionally a dash and dot-separated port numbers.
        public static func isHubLocation(_ text: String) -> Bool {
            let parts = text.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
            guard let bus = parts.first, isNumber(bus) else { return false }
            guard parts.count == 2 else { return true }
            return parts[1].split(separator: ".", omittingEmptySubsequences: false).allSatisfy(isNumber)
        }

        private static func isNumber(_ text: Substring) -> Bool {
            !text.isEmpty && text.count <= 3 && text.allSatisfy { $0.isASCII && $0.isNumber }
        }
    }

    public var id: String
    /// The device profile (device-profiles.md), shared with the virtual farm and the central stack.
    public var profile: Profile
    public var match: Match?
    public var serial: Serial?
    public var power: Power?
    /// The simulation settings, with defaults applied; used only when the rig's radio is virtual.
    public var virtual: VirtualSettings
    /// `radio:`, the id of one of the rig's radios that this board is pinned to; nil: any radio may reach it.
    public var radio: String?
    /// Where `radio:`'s value is written, when it is.
    public var radioLocation: SourceLocation?
    /// Where the board's mapping starts.
    public var location: SourceLocation

    public init(
        id: String, profile: Profile, match: Match? = nil, serial: Serial? = nil, power: Power? = nil,
        virtual: VirtualSettings? = nil, radio: String? = nil, radioLocation: SourceLocation? = nil,
        at location: SourceLocation
    ) {
        self.id = id
        self.profile = profile
        self.match = match
        self.serial = serial
        self.power = power
        self.virtual = virtual ?? VirtualSettings(profile: profile, at: location)
        self.radio = radio
        self.radioLocation = radioLocation
        self.location = location
    }

    /// Board ids: 1 to 64 of `A-Z a-z 0-9 - _`.
    public static func isValidID(_ id: String) -> Bool {
        (1...64).contains(id.count)
            && id.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }
    }
}
