import Gates
import History
import Reports

/// Named baselines (`blerig baseline set NAME RUN`) for the regression gates: the gates ask for a baseline by name,
/// the history resolves it to its run, and the run's raw samples come from the history's sample table.
struct HistoryBaselines: BaselineCatalog {
    let history: any RunHistory

    init(_ history: any RunHistory) { self.history = history }

    func baseline(named name: String) async throws -> (any BaselineSource)? {
        guard let record = try await history.baseline(name) else { return nil }
        return StoredBaseline(history: history, runID: record.runID, name: "baseline '\(name)' (run \(record.runID))")
    }
}

/// One run of the history as a gate's baseline.
struct StoredBaseline: BaselineSource {
    let history: any RunHistory
    let runID: String
    let name: String

    func boards() async throws -> [BaselineBoard] {
        try await history.boards(run: runID).map { BaselineBoard(id: $0.board, profile: $0.profile) }
    }

    /// Every stored sample set of `metric` on `board` in the run (a metric several checks measured is joined, in
    /// the order stored).
    func samples(board: String, metric: String) async throws -> MetricSamples? {
        let sets = try await history.samples(run: runID, board: board, metric: metric)
        guard let first = sets.first else { return nil }
        return MetricSamples(metric: metric, unit: MetricUnit(first.unit), values: sets.flatMap(\.values))
    }
}
