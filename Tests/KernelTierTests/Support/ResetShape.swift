import Foundation

/// What a reset sequence in esptool's grammar (`D0|R1|W0.1|D1|R0|W0.05|D0`; `U1,0` sets DTR and RTS in one
/// TIOCMSET) looks like at the device: the line states that change, in order, and the wait before each.
///
/// The device sees a change only (the kernel's cdc-acm driver sends SET_CONTROL_LINE_STATE when the lines differ
/// from what it last sent), so the shape is simulated from both lines deasserted, and writes that repeat the
/// current state vanish. The grammars are esptool 5.x's (`esptool/reset.py`, `esp_pylib/serial_reset.py`).
struct ResetShape: CustomStringConvertible {
    struct Change: Equatable {
        let dtr: Bool
        let rts: Bool
        /// The grammar's wait since the previous change, in seconds.
        let wait: Double
    }

    let name: String
    let grammar: String
    let changes: [Change]

    static let unixTight = ResetShape(name: "UnixTight 0.05", grammar: "U0,0|U1,1|U0,1|W0.1|U1,0|W0.05|U0,0|D0")
    static let unixTightExtra = ResetShape(
        name: "UnixTight 0.55", grammar: "U0,0|U1,1|U0,1|W0.1|U1,0|W0.55|U0,0|D0")
    static let classic = ResetShape(name: "Classic 0.05", grammar: "D0|R1|W0.1|D1|R0|W0.05|D0")
    static let classicExtra = ResetShape(name: "Classic 0.55", grammar: "D0|R1|W0.1|D1|R0|W0.55|D0")
    static let usbJTAGSerial = ResetShape(
        name: "USBJTAGSerial", grammar: "R0|D0|W0.1|D1|R0|W0.1|R1|D0|R1|W0.1|D0|R0")
    static let hardReset = ResetShape(name: "HardReset", grammar: "R1|W0.1|R0")

    /// esptool's `--before default-reset` on Linux, attempt by attempt.
    static let defaultResetAttempts = [unixTight, unixTightExtra, classic, classicExtra]

    init(name: String, grammar: String) {
        self.name = name
        self.grammar = grammar
        var dtr = false
        var rts = false
        var wait = 0.0
        var changes: [Change] = []
        for token in grammar.split(separator: "|") {
            let argument = token.dropFirst()
            switch token.first {
            case "D": dtr = argument == "1"
            case "R": rts = argument == "1"
            case "U":
                let both = argument.split(separator: ",")
                dtr = both.first == "1"
                rts = both.last == "1"
            case "W":
                wait += Double(argument) ?? 0
                continue
            default: preconditionFailure("\(grammar): \(token) is not in esptool's grammar")
            }
            let previous = changes.last.map { ($0.dtr, $0.rts) } ?? (false, false)
            if previous != (dtr, rts) {
                changes.append(Change(dtr: dtr, rts: rts, wait: wait))
                wait = 0
            }
        }
        self.changes = changes
    }

    var description: String { "\(name) (\(grammar))" }

    /// The last run of consecutive steps whose states are this shape's, or nil.
    func match(in steps: [LineStep]) -> [LineStep]? {
        guard steps.count >= changes.count, !changes.isEmpty else { return nil }
        for start in stride(from: steps.count - changes.count, through: 0, by: -1) {
            let run = Array(steps[start..<(start + changes.count)])
            if zip(run, changes).allSatisfy({ $0.dtr == $1.dtr && $0.rts == $1.rts }) { return run }
        }
        return nil
    }

    /// Where a matched run's waits differ from the grammar's by more than `late` (too slow) or `early` (too
    /// fast: a wait is a minimum, so only scheduling can stretch it).
    func waitErrors(_ run: [LineStep], late: Double, early: Double = 0.002) -> [String] {
        var errors: [String] = []
        for index in 1..<run.count {
            let measured = run[index].t - run[index - 1].t
            let expected = changes[index].wait
            if measured > expected + late || measured < expected - early {
                errors.append(
                    "\(name) step \(index + 1) (\(run[index])): \(ms(measured)) after the previous, grammar \(ms(expected))")
            }
        }
        return errors
    }
}

/// One reset played several times by two programs (blerig and esptool), compared step by step: each step's
/// interval since the previous change. A wait is a minimum and scheduling (a guest under TCG on a loaded host, a
/// USB/IP round trip through Python) only stretches it, so each program's step is the least of its runs.
struct TimelineComparison: CustomStringConvertible {
    let titles: (String, String)
    let shape: ResetShape
    let left: [[LineStep]]
    let right: [[LineStep]]

    /// Each step's time since the previous change (0 for the first).
    static func intervals(_ run: [LineStep]) -> [Double] {
        run.indices.map { $0 == 0 ? 0 : run[$0].t - run[$0 - 1].t }
    }

    /// Per step, the least interval among `runs`.
    static func floor(_ runs: [[LineStep]]) -> [Double] {
        let all = runs.map(intervals)
        guard let first = all.first else { return [] }
        return first.indices.map { index in all.map { $0[index] }.min() ?? 0 }
    }

    /// Steps whose floors differ by more than `tolerance` seconds; runs that do not have the shape's states.
    func mismatches(tolerance: Double) -> [String] {
        let expected = shape.changes.map { ($0.dtr, $0.rts) }
        var problems: [String] = []
        for (title, runs) in [(titles.0, left), (titles.1, right)] {
            if runs.isEmpty { problems.append("no \(title) run") }
            for run in runs where !run.map({ ($0.dtr, $0.rts) }).elementsEqual(expected, by: ==) {
                problems.append("a \(title) run has the states \(run), not \(shape)'s")
            }
        }
        guard problems.isEmpty else { return problems }
        let (a, b) = (Self.floor(left), Self.floor(right))
        for index in a.indices where abs(a[index] - b[index]) > tolerance {
            problems.append(
                "step \(index + 1) (\(left[0][index])): \(titles.0) \(ms(a[index])) after the previous, "
                    + "\(titles.1) \(ms(b[index]))")
        }
        return problems
    }

    /// A table: step, lines, the grammar's wait, each side's floor, then each side's runs.
    var description: String {
        func cell(_ text: String, _ width: Int) -> String { text.padding(toLength: width, withPad: " ", startingAt: 0) }
        let (a, b) = (Self.floor(left), Self.floor(right))
        var lines = [
            cell("step", 6) + cell("lines", 7) + cell("grammar", 10) + cell(titles.0, 11) + cell(titles.1, 11)
                + "\(titles.0) runs | \(titles.1) runs (ms since the previous change)"
        ]
        for index in shape.changes.indices {
            let change = shape.changes[index]
            let state = "D\(change.dtr ? 1 : 0)R\(change.rts ? 1 : 0)"
            func runs(_ runs: [[LineStep]]) -> String {
                runs.map { index < $0.count ? String(format: "%.1f", Self.intervals($0)[index] * 1000) : "-" }
                    .joined(separator: " ")
            }
            lines.append(
                cell("\(index + 1)", 6) + cell(state, 7) + cell(ms(change.wait), 10)
                    + cell(index < a.count ? ms(a[index]) : "-", 11) + cell(index < b.count ? ms(b[index]) : "-", 11)
                    + runs(left) + " | " + runs(right))
        }
        return lines.joined(separator: "\n")
    }
}

func ms(_ seconds: Double) -> String { String(format: "%.1f ms", seconds * 1000) }
