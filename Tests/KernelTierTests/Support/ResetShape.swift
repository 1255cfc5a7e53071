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

/// Two runs of the same shape, step by step: offsets from each run's first step, and where they differ.
struct TimelineComparison: CustomStringConvertible {
    let titles: (String, String)
    let left: [LineStep]
    let right: [LineStep]

    /// Steps whose offsets differ by more than `tolerance` seconds, or whose states differ.
    func mismatches(tolerance: Double) -> [String] {
        guard left.count == right.count else { return ["\(left.count) steps against \(right.count)"] }
        var problems: [String] = []
        for index in left.indices {
            let a = left[index]
            let b = right[index]
            if a.dtr != b.dtr || a.rts != b.rts { problems.append("step \(index + 1): \(a) against \(b)") }
            let difference = abs((a.t - left[0].t) - (b.t - right[0].t))
            if difference > tolerance { problems.append("step \(index + 1) (\(a)): offsets differ by \(ms(difference))") }
        }
        return problems
    }

    var description: String {
        var lines = ["step  lines   \(titles.0.padding(toLength: 14, withPad: " ", startingAt: 0))  \(titles.1)"]
        for index in 0..<max(left.count, right.count) {
            let a = index < left.count ? left[index] : nil
            let b = index < right.count ? right[index] : nil
            let state = (a ?? b).map(\.description) ?? "?"
            let offsetA = a.map { ms($0.t - left[0].t) } ?? "-"
            let offsetB = b.map { ms($0.t - right[0].t) } ?? "-"
            lines.append(
                "\(String(index + 1).padding(toLength: 4, withPad: " ", startingAt: 0))  \(state)    "
                    + "\(offsetA.padding(toLength: 14, withPad: " ", startingAt: 0))  \(offsetB)")
        }
        return lines.joined(separator: "\n")
    }
}

func ms(_ seconds: Double) -> String { String(format: "%.1f ms", seconds * 1000) }
