import Foundation
import Reports

/// The history of runs and the boards' leases, on one database: SQLite (``SQLiteHistory``) for one host or
/// PostgreSQL (``PostgresHistory``) for several, with the same schema (``HistorySchema``). Open one with
/// ``History/open(_:)``.
public protocol RunHistory: LeaseStore {
    /// Where the database is.
    var location: HistoryLocation { get }

    /// The schema version the database is at.
    func schemaVersion() async throws(HistoryError) -> Int

    /// Stores a run, replacing an earlier copy of the same run (importing a run twice is harmless). A different
    /// run that happens to have the same id (from another host) is refused.
    func store(_ rows: RunRows) async throws(HistoryError)

    /// Stored runs, newest first: of `rig` only when given, at most `last` when given.
    func runs(rig: String?, last: Int?) async throws(HistoryError) -> [RunRecord]

    /// The run with `id`; nil when history has none.
    func run(_ id: String) async throws(HistoryError) -> RunRecord?

    /// The run's boards, in the order the run found them.
    func boards(run id: String) async throws(HistoryError) -> [BoardRecord]

    /// Every attempt of every check of the run, per board in order.
    func outcomes(run id: String) async throws(HistoryError) -> [OutcomeRecord]

    /// The run's metric values, of one board and one metric when given, in the order they were measured.
    func values(run id: String, board: String?, metric: String?) async throws(HistoryError) -> [ValueRecord]

    /// The run's raw samples, of one board and one metric when given.
    func samples(run id: String, board: String?, metric: String?) async throws(HistoryError) -> [SamplesRecord]

    /// What each metric of the run measures, by metric.
    func definitions(run id: String) async throws(HistoryError) -> [String: String]

    /// Names `run` as the baseline `name`, replacing what the name pointed to.
    func setBaseline(_ name: String, run: String, by: String) async throws(HistoryError)

    /// Every baseline, by name.
    func baselines() async throws(HistoryError) -> [BaselineRecord]

    /// Closes the connections. The history is not used afterwards.
    func close() async
}

extension RunHistory {
    /// Stores a finished run.
    public func store(_ result: RunResult) async throws(HistoryError) {
        do { try await store(try RunRows(result)) } catch {
            throw HistoryError(database: location.description, message: error.message)
        }
    }

    /// The baseline `name`; nil when none is set.
    public func baseline(_ name: String) async throws(HistoryError) -> BaselineRecord? {
        try await baselines().first { $0.name == name }
    }

    /// A run named on the command line: a baseline's name or a run id. Throws when it is neither.
    public func resolve(_ name: String) async throws(HistoryError) -> RunRecord {
        if let baseline = try await baseline(name) {
            guard let run = try await run(baseline.runID) else {
                throw HistoryError(
                    database: location.description,
                    message: "baseline '\(name)' points to run \(baseline.runID), which history no longer has")
            }
            return run
        }
        if let run = try await run(name) { return run }
        let recent = try await runs(rig: nil, last: 3).map(\.runID)
        throw HistoryError(
            database: location.description,
            message: "no run or baseline named '\(name)'"
                + (recent.isEmpty ? " (history is empty)" : "; latest runs: \(recent.joined(separator: ", "))"))
    }
}

/// Opens histories.
public enum History {
    /// Opens (and creates, and migrates) the history at `location`.
    public static func open(_ location: HistoryLocation) async throws(HistoryError) -> any RunHistory {
        switch location {
        case .sqlite(let path): try SQLiteHistory(path: path)
        case .postgres(let url): try await PostgresHistory.connect(url)
        }
    }
}
