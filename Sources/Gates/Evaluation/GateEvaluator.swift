import Reports

/// Judges runs by a gates file: every gate gives one ``Reports/GateVerdict``, in the file's order.
///
/// A gate speaks for the boards in its scope. Each board of the scope that measured the metric must hold it;
/// a board that did not measure it while boards of its profile did (its check failed, or did not run) makes
/// the answer *not enough data* rather than *held*, and so does a scope in which no board measured it. A
/// breach anywhere in the scope is a breach.
public struct GateEvaluator: Sendable {
    public let file: GatesFile

    public init(_ file: GatesFile) { self.file = file }

    /// The verdicts on `run`; regression gates compare with `baseline` and, without one, have not enough data.
    public func evaluate(_ run: GateRun, baseline: (any BaselineSource)?) async -> [GateVerdict] {
        var verdicts: [GateVerdict] = []
        for gate in file.gates {
            switch gate.rule {
            case .absolute(let limit):
                verdicts.append(Self.absolute(limit, gate: gate, run: run))
            case .regression(let limit):
                verdicts.append(await Self.regression(limit, gate: gate, run: run, baseline: baseline))
            }
        }
        return verdicts
    }

    static func verdict(
        _ gate: Gate, _ decision: GateVerdict.Decision, measured: Double? = nil, baseline: Double? = nil,
        message: String, details: [String]
    ) -> GateVerdict {
        GateVerdict(
            gate: gate.text, scope: gate.scope.description, kind: gate.kind, decision: decision, measured: measured,
            baseline: baseline, message: message,
            details: (details + ["defined at \(gate.location)"]).joined(separator: "\n"))
    }

    /// The boards of `run` in `scope`.
    static func boards(of run: GateRun, in scope: GateScope) -> [GateRun.Board] {
        run.boards.filter { scope.contains(board: $0.id, profile: $0.profile) }
    }

    static func absolute(_ limit: AbsoluteLimit, gate: Gate, run: GateRun) -> GateVerdict {
        let name = "\(limit.metric).\(limit.statistic)"
        let boards = boards(of: run, in: gate.scope)
        if case .board(let id) = gate.scope, boards.isEmpty {
            return verdict(gate, .notEnoughData, message: "board \(id) is not in the run", details: [])
        }
        let measuring = Set(run.boards.filter { !$0.values(limit.metric, limit.statistic).isEmpty }.map(\.profile))
        var readings: [(board: String, value: MeasuredValue)] = []
        var missing: [String] = []
        for board in boards {
            let values = board.values(limit.metric, limit.statistic)
            if values.isEmpty {
                if case .board = gate.scope { missing.append(board.id) }
                else if measuring.contains(board.profile) { missing.append(board.id) }
            }
            readings += values.map { (board.id, $0) }
        }
        let details = readings.map { "\($0.board): \(name) = \(reading($0.value))" }
            + missing.map { "\($0): did not measure \(name)" }
        let larger = limit.comparison.largerIsWorse
        let worst = readings.max { larger ? $0.value.value < $1.value.value : $0.value.value > $1.value.value }
        let failing = readings.filter { !limit.comparison.holds($0.value.value, limit.limit) }
        if let first = failing.max(by: { larger ? $0.value.value < $1.value.value : $0.value.value > $1.value.value }) {
            let boardsFailing = Set(failing.map(\.board)).count
            let boardsMeasured = Set(readings.map(\.board)).count
            return verdict(
                gate, .breached, measured: first.value.value,
                message: "\(first.board): \(name) \(reading(first.value)) does not hold \(limit.comparison.rawValue) "
                    + "\(GateNumber.text(limit.limit)) (\(boardsFailing) of \(boardsMeasured) board(s) breach)",
                details: details)
        }
        guard let worst else {
            let known = Set(run.boards.flatMap { $0.measurements.filter { $0.metric == limit.metric } }.map(\.statistic.rawValue))
            let hint =
                known.isEmpty
                ? "no board measured \(limit.metric) at all"
                : "\(limit.metric) has \(known.sorted().joined(separator: ", "))"
            return verdict(
                gate, .notEnoughData,
                message: "no board in \(gate.scope) measured \(name) (\(hint))", details: details)
        }
        if !missing.isEmpty {
            return verdict(
                gate, .notEnoughData, measured: worst.value.value,
                message: "\(missing.joined(separator: ", ")) did not measure \(name) (the others hold it; worst "
                    + "\(worst.board) \(reading(worst.value)))", details: details)
        }
        return verdict(
            gate, .held, measured: worst.value.value,
            message: "worst \(worst.board): \(name) \(reading(worst.value)) \(limit.comparison.rawValue) "
                + "\(GateNumber.text(limit.limit)) over \(Set(readings.map(\.board)).count) board(s)",
            details: details)
    }

    /// `812.5 ms`, `0.992 ratio`, `14`.
    static func reading(_ value: MeasuredValue) -> String {
        value.unit.rawValue.isEmpty ? GateNumber.text(value.value) : "\(GateNumber.text(value.value)) \(value.unit)"
    }
}
