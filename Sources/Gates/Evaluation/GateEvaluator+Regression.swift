import Reports

extension GateEvaluator {
    /// A regression gate: each board in scope is compared with the same board of the baseline, at α divided by
    /// the number of boards compared (Bonferroni), so a rig of many boards raises no more false alarms than one.
    static func regression(
        _ limit: RegressionLimit, gate: Gate, run: GateRun, baseline: (any BaselineSource)?
    ) async -> GateVerdict {
        let name = "\(limit.metric).\(limit.statisticName)"
        guard let baseline else {
            return verdict(
                gate, .notEnoughData,
                message: "no baseline to compare \(name) with (give --baseline RUN_DIR or a baseline's name)",
                details: [])
        }
        let pairs: [(board: String, run: MetricSamples?, baseline: MetricSamples?)]
        do {
            pairs = try await samplePairs(limit.metric, scope: gate.scope, run: run, baseline: baseline)
        } catch {
            return verdict(
                gate, .notEnoughData, message: "the baseline \(baseline.name) could not be read: \(error)", details: [])
        }
        var lines: [String] = []
        var short: [String] = []
        var usable: [(board: String, run: [Double], baseline: [Double], unit: MetricUnit)] = []
        for pair in pairs {
            let runCount = pair.run?.values.count ?? 0
            let baseCount = pair.baseline?.values.count ?? 0
            if let a = pair.run?.unit, let b = pair.baseline?.unit, a != b {
                short.append(pair.board)
                lines.append("\(pair.board): units differ (\(a) in the run, \(b) in the baseline)")
            } else if runCount < limit.minSamples || baseCount < limit.minSamples {
                short.append(pair.board)
                lines.append(
                    "\(pair.board): \(runCount) sample(s) in the run, \(baseCount) in the baseline "
                        + "(min_samples \(limit.minSamples))")
            } else {
                usable.append((pair.board, pair.run!.values, pair.baseline!.values, pair.run!.unit))
            }
        }
        let alpha = limit.alpha / Double(max(1, usable.count))
        var compared: [(board: String, result: RegressionComparison, unit: MetricUnit)] = []
        for entry in usable {
            let result = RegressionComparison(run: entry.run, baseline: entry.baseline, limit: limit, alpha: alpha)
            compared.append((entry.board, result, entry.unit))
            lines.append(line(entry.board, result, unit: entry.unit, limit: limit))
        }
        let against = "against \(baseline.name)"
        lines.append(
            "\(limit.test.rawValue), α \(GateNumber.text(limit.alpha)) over \(max(1, usable.count)) board(s) = "
                + "\(GateNumber.text(alpha)) each; breach when significant and the \(limit.statisticName) moves by more "
                + "than max(\(GateNumber.text(limit.maxChange * 100)) % of the baseline's, min_effect "
                + "\(GateNumber.text(limit.minEffect)))")
        // The worst board: the largest relative move the bad way.
        let worst = compared.max { a, b in
            (a.result.worsening(limit.direction) ?? 0) / max(abs(a.result.baselineQuantile ?? 1), .ulpOfOne)
                < (b.result.worsening(limit.direction) ?? 0) / max(abs(b.result.baselineQuantile ?? 1), .ulpOfOne)
        }
        if let breach = compared.filter({ $0.result.decision == .breached }).max(by: { a, b in
            (a.result.change ?? 0) * (limit.direction == .increase ? 1 : -1)
                < (b.result.change ?? 0) * (limit.direction == .increase ? 1 : -1)
        }) {
            return verdict(
                gate, .breached, measured: breach.result.runQuantile, baseline: breach.result.baselineQuantile,
                message: summary(breach.board, breach.result, unit: breach.unit, limit: limit) + " \(against)",
                details: lines)
        }
        if !short.isEmpty || compared.isEmpty {
            let why =
                pairs.isEmpty
                ? "neither the run nor the baseline has samples of \(limit.metric) in \(gate.scope)"
                : "\(short.joined(separator: ", ")): too few samples of \(limit.metric) to compare"
            return verdict(
                gate, .notEnoughData, measured: worst?.result.runQuantile, baseline: worst?.result.baselineQuantile,
                message: "\(why) \(against)", details: lines)
        }
        let shown = worst!
        return verdict(
            gate, .held, measured: shown.result.runQuantile, baseline: shown.result.baselineQuantile,
            message: summary(shown.board, shown.result, unit: shown.unit, limit: limit)
                + " \(against) (\(compared.count) board(s))",
            details: lines)
    }

    /// The boards in scope on either side with the samples each side has; boards without samples on either side
    /// are left out (their profile does not measure the metric), unless the gate names the board.
    static func samplePairs(
        _ metric: String, scope: GateScope, run: GateRun, baseline: any BaselineSource
    ) async throws -> [(board: String, run: MetricSamples?, baseline: MetricSamples?)] {
        var ids = boards(of: run, in: scope).map(\.id)
        for board in try await baseline.boards() where scope.contains(board: board.id, profile: board.profile) {
            if !ids.contains(board.id) { ids.append(board.id) }
        }
        if case .board(let id) = scope, !ids.contains(id) { ids.append(id) }
        var pairs: [(board: String, run: MetricSamples?, baseline: MetricSamples?)] = []
        for id in ids {
            let mine = run.board(id)?.samples[metric]
            let theirs = try await baseline.samples(board: id, metric: metric)
            let named: Bool = if case .board = scope { true } else { false }
            guard mine != nil || theirs != nil || named else { continue }
            pairs.append((id, mine, theirs))
        }
        return pairs
    }

    /// `esp-01: p50 245.1 ms vs 204.3 ms (+20 %, allowed 20.43 ms); p=1e-06 (exact)`.
    static func line(_ board: String, _ result: RegressionComparison, unit: MetricUnit, limit: RegressionLimit)
        -> String
    {
        let verdict =
            switch result.decision {
            case .held: "held"
            case .breached: "BREACHED"
            case .notEnoughData: "not enough data"
            }
        return "\(board): \(verdict): \(summary(board: nil, result, unit: unit, limit: limit)); n \(result.runCount) "
            + "vs \(result.baselineCount); \(result.evidence)"
    }

    static func summary(_ board: String, _ result: RegressionComparison, unit: MetricUnit, limit: RegressionLimit)
        -> String
    {
        "\(board): " + summary(board: nil, result, unit: unit, limit: limit)
    }

    private static func summary(
        board: String?, _ result: RegressionComparison, unit: MetricUnit, limit: RegressionLimit
    ) -> String {
        let suffix = unit.rawValue.isEmpty ? "" : " \(unit)"
        let run = result.runQuantile.map { GateNumber.text($0) + suffix } ?? "?"
        let base = result.baselineQuantile.map { GateNumber.text($0) + suffix } ?? "?"
        let change = result.change.map { GateNumber.percent($0) } ?? "n/a"
        return "\(limit.statisticName) \(run) vs \(base) (\(change), allowed "
            + "\(limit.direction == .increase ? "+" : "-")\(GateNumber.text(result.allowed))\(suffix))"
    }
}
