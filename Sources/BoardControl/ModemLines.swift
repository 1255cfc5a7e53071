import Glibc

/// The modem control lines of a serial port as TIOCMGET reports them and TIOCMSET sets them (the `TIOCM_*` bits).
/// DTR and RTS are outputs; CTS, DSR, CD and RI are inputs, read only.
public struct ModemLines: OptionSet, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    public static let dtr = ModemLines(rawValue: Int32(TIOCM_DTR))
    public static let rts = ModemLines(rawValue: Int32(TIOCM_RTS))
    public static let cts = ModemLines(rawValue: Int32(TIOCM_CTS))
    public static let dsr = ModemLines(rawValue: Int32(TIOCM_DSR))
    public static let cd = ModemLines(rawValue: Int32(TIOCM_CAR))
    public static let ri = ModemLines(rawValue: Int32(TIOCM_RNG))

    public var dtrOn: Bool {
        get { contains(.dtr) }
        set { if newValue { insert(.dtr) } else { remove(.dtr) } }
    }

    public var rtsOn: Bool {
        get { contains(.rts) }
        set { if newValue { insert(.rts) } else { remove(.rts) } }
    }

    /// `DTR=1 RTS=0`: the outputs.
    public var description: String { "DTR=\(dtrOn ? 1 : 0) RTS=\(rtsOn ? 1 : 0)" }
}
