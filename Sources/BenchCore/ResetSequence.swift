/// A reset as modem-line changes and waits, in esptool's custom-reset grammar: commands separated by `|`,
///
/// | command | meaning |
/// |---|---|
/// | `D1` / `D0` | assert / release DTR (an ESP32 DevKit's IO0, active low) |
/// | `R1` / `R0` | assert / release RTS (its EN, active low) |
/// | `U1,0` | set DTR and RTS together, in one TIOCMSET (DTR first, then RTS) |
/// | `W0.1` | wait 0.1 s |
///
/// so `D0|R1|W0.1|D1|R0|W0.05|D0` is esptool's classic download-mode reset. ``init(parsing:)`` reports a malformed
/// sequence with the column of the offending command, and ``description`` writes the sequence back in the same
/// grammar, so `ResetSequence(parsing: s).description == s` for every sequence written in the canonical form.
public struct ResetSequence: Sendable, Hashable, CustomStringConvertible {
    public enum Step: Sendable, Hashable, CustomStringConvertible {
        case dtr(Bool)
        case rts(Bool)
        /// Both lines in one call, so the board never sees the state between them.
        case lines(dtr: Bool, rts: Bool)
        case wait(Duration)

        public var description: String {
            switch self {
            case .dtr(let on): "D\(on ? 1 : 0)"
            case .rts(let on): "R\(on ? 1 : 0)"
            case .lines(let dtr, let rts): "U\(dtr ? 1 : 0),\(rts ? 1 : 0)"
            case .wait(let duration): "W\(ResetSequence.seconds(duration))"
            }
        }
    }

    /// The longest single wait a sequence may hold: `W` counts seconds, and `W100` meant as 100 ms would stall the
    /// bench for minutes.
    public static let longestWait: Duration = .seconds(60)

    public var steps: [Step]

    public init(_ steps: [Step]) { self.steps = steps }

    /// The sum of the waits: how long the sequence takes, line changes not counted.
    public var duration: Duration {
        steps.reduce(.zero) { total, step in
            if case .wait(let wait) = step { total + wait } else { total }
        }
    }

    public var description: String { steps.map(\.description).joined(separator: "|") }

    /// `0.1`, `0.05`, `2`: the shortest decimal that gives back the same number of microseconds.
    static func seconds(_ duration: Duration) -> String {
        let micros = duration.components.seconds * 1_000_000 + duration.components.attoseconds / 1_000_000_000_000
        let whole = micros / 1_000_000
        var fraction = String(micros % 1_000_000)
        guard fraction != "0" else { return "\(whole)" }
        fraction = String(repeating: "0", count: 6 - fraction.count) + fraction
        while fraction.hasSuffix("0") { fraction.removeLast() }
        return "\(whole).\(fraction)"
    }
}

/// Why a reset sequence does not parse, and where: ``column`` counts Unicode scalars from 1 within the sequence text.
public struct ResetSequenceError: Error, Sendable, Hashable, CustomStringConvertible {
    public var column: Int
    /// One line, without the column: `unknown command 'X' (expected D, R, U or W)`.
    public var message: String

    public init(column: Int, _ message: String) {
        self.column = column
        self.message = message
    }

    public var description: String { "column \(column): \(message)" }
}
