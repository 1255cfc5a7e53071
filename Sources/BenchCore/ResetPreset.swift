/// The named resets a rig can give a board's serial wiring (`serial: {reset: esp32-classic}`), each with the
/// resets it can do. The ESP32 ones are esptool 5.x's (`esptool/reset.py`), step for step and with its delays:
/// DTR drives IO0 and RTS drives EN, both active low.
public enum ResetPreset: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// An ESP32 DevKit's auto-reset circuit, lines set one after the other: esptool's `ClassicReset` into the
    /// ROM bootloader, `HardReset` to run.
    case esp32Classic = "esp32-classic"
    /// The same circuit with both lines set in one TIOCMSET: esptool's `UnixTightReset` (its first choice on
    /// Linux) into the bootloader, `HardReset` to run.
    case esp32UnixTight = "esp32-unix-tight"
    /// The USB-Serial/JTAG peripheral of an ESP32-C3/S3/C6 (VID 0x303A PID 0x1001): esptool's
    /// `USBJTAGSerialReset` into the bootloader, `HardReset(uses_usb=True)` to run. The port may re-enumerate.
    case esp32USBJTAG = "esp32-usb-jtag"
    /// esptool's `HardReset`: EN low for 100 ms. Run reset only.
    case hardReset = "hard-reset"
    /// The same run reset as `hard-reset` (device-profiles: "RTS on 100 ms, off"); the name older rigs use.
    case runOnly = "run-only"
    /// Arduino's 1200-baud touch: open the port at 1200 baud, drop DTR, close; the board's USB stack restarts
    /// into its bootloader, which comes up as a new port within 10 s (arduino-cli). Bootloader only.
    case arduino1200Touch = "arduino-1200-touch"
    /// DTR asserted for 100 ms, then released: boards whose reset pin hangs off DTR (an Uno's capacitor, debug
    /// probes' CDC bridges). Run reset only.
    case dtrPulse = "dtr-pulse"

    public var description: String { rawValue }

    /// esptool's `DEFAULT_RESET_DELAY`: how long IO0 stays low after EN rises.
    public static let defaultResetDelay: Duration = .milliseconds(50)

    /// The resets the preset can do.
    public var kinds: [ResetKind] {
        switch self {
        case .esp32Classic, .esp32UnixTight, .esp32USBJTAG: [.run, .bootloader]
        case .hardReset, .runOnly, .dtrPulse: [.run]
        case .arduino1200Touch: [.bootloader]
        }
    }

    /// How the preset does `kind`; nil when it cannot.
    public func plan(for kind: ResetKind) -> ResetPlan? {
        guard kinds.contains(kind) else { return nil }
        if self == .arduino1200Touch { return .touch1200 }
        return .lines(sequence(for: kind)!)
    }

    /// The line changes of `kind`, with esptool's delays; nil for the 1200-baud touch and for a kind the preset
    /// cannot do.
    public func sequence(for kind: ResetKind, resetDelay: Duration = defaultResetDelay) -> ResetSequence? {
        guard kinds.contains(kind) else { return nil }
        let delay = ResetSequence.Step.wait(resetDelay)
        let tenth = ResetSequence.Step.wait(.milliseconds(100))
        switch (self, kind) {
        case (.esp32Classic, .bootloader):
            return ResetSequence([.dtr(false), .rts(true), tenth, .dtr(true), .rts(false), delay, .dtr(false)])
        case (.esp32UnixTight, .bootloader):
            return ResetSequence([
                .lines(dtr: false, rts: false), .lines(dtr: true, rts: true), .lines(dtr: false, rts: true), tenth,
                .lines(dtr: true, rts: false), delay, .lines(dtr: false, rts: false), .dtr(false),
            ])
        case (.esp32USBJTAG, .bootloader):
            return ResetSequence([
                .rts(false), .dtr(false), tenth, .dtr(true), .rts(false), tenth, .rts(true), .dtr(false), .rts(true),
                tenth, .dtr(false), .rts(false),
            ])
        case (.esp32USBJTAG, .run):
            let fifth = ResetSequence.Step.wait(.milliseconds(200))
            return ResetSequence([.rts(true), fifth, .rts(false), fifth])
        case (.esp32Classic, .run), (.esp32UnixTight, .run), (.hardReset, .run), (.runOnly, .run):
            return ResetSequence([.rts(true), tenth, .rts(false)])
        case (.dtrPulse, .run):
            return ResetSequence([.dtr(true), tenth, .dtr(false)])
        default:
            return nil
        }
    }
}

/// How one reset is done: modem-line changes on the open port, or the 1200-baud touch.
public enum ResetPlan: Sendable, Hashable, CustomStringConvertible {
    case lines(ResetSequence)
    case touch1200

    public var description: String {
        switch self {
        case .lines(let sequence): "\(sequence)"
        case .touch1200: "1200-baud touch"
        }
    }
}

/// What a board's serial wiring does to reset it (`serial.reset` in the rig file): a preset, a sequence of its
/// own (its run reset), or nothing.
public enum ResetWiring: Sendable, Hashable, CustomStringConvertible {
    case preset(ResetPreset)
    /// A sequence written in the rig (`reset: "R1|W0.25|R0"`): the board's run reset.
    case sequence(ResetSequence)
    /// The rig never resets the board through its serial port.
    case none

    public static let esp32Classic = ResetWiring.preset(.esp32Classic)
    public static let runOnly = ResetWiring.preset(.runOnly)
    public static let arduino1200Touch = ResetWiring.preset(.arduino1200Touch)

    public var kinds: [ResetKind] {
        switch self {
        case .preset(let preset): preset.kinds
        case .sequence: [.run]
        case .none: []
        }
    }

    public func plan(for kind: ResetKind) -> ResetPlan? {
        switch self {
        case .preset(let preset): preset.plan(for: kind)
        case .sequence(let sequence): kind == .run ? .lines(sequence) : nil
        case .none: nil
        }
    }

    /// Reads a preset name or a sequence. A word that is not a preset and does not look like a sequence (no `|`,
    /// no command letter followed by a digit) is reported as an unknown preset, at column 1.
    public init(parsing text: String) throws(ResetSequenceError) {
        if text == "none" {
            self = .none
            return
        }
        if let preset = ResetPreset(rawValue: text) {
            self = .preset(preset)
            return
        }
        let scalars = Array(text.unicodeScalars)
        let looksLikeSequence =
            text.contains("|")
            || (scalars.count >= 2 && "DRUW".unicodeScalars.contains(scalars[0])
                && ("0"..."9").contains(scalars[1]))
        guard looksLikeSequence else {
            let names = ResetPreset.allCases.map(\.rawValue).joined(separator: ", ")
            throw ResetSequenceError(
                column: 1,
                "unknown reset '\(text)' (expected \(names), none, or a sequence such as \"R1|W0.1|R0\")")
        }
        self = .sequence(try ResetSequence(parsing: text))
    }

    public var description: String {
        switch self {
        case .preset(let preset): preset.rawValue
        case .sequence(let sequence): "\(sequence)"
        case .none: "none"
        }
    }
}
