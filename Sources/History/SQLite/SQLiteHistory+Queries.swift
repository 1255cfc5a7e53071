import Foundation
import GRDB
import Reports

extension SQLiteHistory {
    public func runs(rig: String?, last: Int?) async throws(HistoryError) -> [RunRecord] {
        let sql =
            HistoryQueries.sqlite(HistoryQueries.runs(rig: rig != nil)) + (last.map { " LIMIT \(max(0, $0))" } ?? "")
        let arguments: StatementArguments = rig.map { [$0] } ?? []
        return try await read { db in try Row.fetchAll(db, sql: sql, arguments: arguments).map(Self.run) }
    }

    public func run(_ id: String) async throws(HistoryError) -> RunRecord? {
        try await read { db in
            try Row.fetchOne(db, sql: HistoryQueries.sqlite(HistoryQueries.run), arguments: [id]).map(Self.run)
        }
    }

    public func boards(run id: String) async throws(HistoryError) -> [BoardRecord] {
        try await read { db in
            var identity: [String: [IdentityField]] = [:]
            for row in try Row.fetchAll(db, sql: HistoryQueries.sqlite(HistoryQueries.identity), arguments: [id]) {
                identity[row["board"], default: []].append(IdentityField(key: row["key"], value: row["value"]))
            }
            return try Row.fetchAll(db, sql: HistoryQueries.sqlite(HistoryQueries.boards), arguments: [id]).map {
                BoardRecord(
                    board: $0["board"], profile: $0["profile"], firmware: $0["firmware"], finalState: $0["final_state"],
                    identity: identity[$0["board"]] ?? [])
            }
        }
    }

    public func outcomes(run id: String) async throws(HistoryError) -> [OutcomeRecord] {
        try await read { db in
            try Row.fetchAll(db, sql: HistoryQueries.sqlite(HistoryQueries.outcomes), arguments: [id]).map {
                OutcomeRecord(
                    board: $0["board"], ordinal: $0["ordinal"], suite: $0["suite"], test: $0["test"],
                    attempt: $0["attempt"], isFinal: $0["final"], status: $0["status"],
                    failureClass: ($0["failure_class"] as String?).flatMap(FailureClass.init(rawValue:)),
                    message: $0["message"], benchSeconds: $0["bench_seconds"], wallSeconds: $0["wall_seconds"])
            }
        }
    }

    public func values(run id: String, board: String?, metric: String?) async throws(HistoryError) -> [ValueRecord] {
        let sql = HistoryQueries.sqlite(
            HistoryQueries.filtered(
                HistoryQueries.valueColumns, from: "metric_values", board: board != nil, metric: metric != nil))
        let arguments = StatementArguments([id, board, metric].compactMap { $0 })
        return try await read { db in
            try Row.fetchAll(db, sql: sql, arguments: arguments).map {
                ValueRecord(
                    board: $0["board"], suite: $0["suite"], test: $0["test"], metric: $0["metric"],
                    statistic: $0["statistic"], value: ($0["value"] as Double?) ?? .nan, unit: $0["unit"])
            }
        }
    }

    public func samples(run id: String, board: String?, metric: String?) async throws(HistoryError) -> [SamplesRecord] {
        let sql = HistoryQueries.sqlite(
            HistoryQueries.filtered(
                HistoryQueries.sampleColumns, from: "metric_samples", board: board != nil, metric: metric != nil))
        let arguments = StatementArguments([id, board, metric].compactMap { $0 })
        let database = path
        return try await read { db in
            try Row.fetchAll(db, sql: sql, arguments: arguments).map { row in
                let encoding: String = row["encoding"]
                let data: Data = row["data"]
                guard encoding == SampleEncoding.name, let values = SampleEncoding.decode(data) else {
                    throw HistoryError(
                        database: database,
                        message: "samples of \(row["metric"] as String) on \(row["board"] as String) in run \(id) "
                            + "are in an encoding this blerig cannot read ('\(encoding)', \(data.count) bytes)")
                }
                return SamplesRecord(
                    board: row["board"], suite: row["suite"], test: row["test"], metric: row["metric"],
                    unit: row["unit"], values: values)
            }
        }
    }

    public func definitions(run id: String) async throws(HistoryError) -> [String: String] {
        try await read { db in
            var definitions: [String: String] = [:]
            for row in try Row.fetchAll(db, sql: HistoryQueries.sqlite(HistoryQueries.definitions), arguments: [id]) {
                definitions[row["metric"]] = definitions[row["metric"]] ?? row["definition"]
            }
            return definitions
        }
    }

    public func setBaseline(_ name: String, run: String, by: String) async throws(HistoryError) {
        let database = path
        try await write { db in
            guard try Bool.fetchOne(db, sql: "SELECT 1 FROM runs WHERE run_id = ?", arguments: [run]) != nil else {
                throw HistoryError(database: database, message: "no run \(run) in history: see blerig history")
            }
            try db.execute(
                sql: """
                    INSERT INTO baselines (name, run_id, set_at, set_by) VALUES (?, ?, ?, ?)
                    ON CONFLICT (name) DO UPDATE SET run_id = excluded.run_id, set_at = excluded.set_at,
                      set_by = excluded.set_by
                    """, arguments: [name, run, Date().timeIntervalSince1970, by])
        }
    }

    public func baselines() async throws(HistoryError) -> [BaselineRecord] {
        try await read { db in
            try Row.fetchAll(db, sql: HistoryQueries.baselines).map {
                BaselineRecord(
                    name: $0["name"], runID: $0["run_id"], setAt: Date(timeIntervalSince1970: $0["set_at"]),
                    setBy: $0["set_by"])
            }
        }
    }

    static func run(_ row: Row) -> RunRecord {
        RunRecord(
            runID: row["run_id"], rig: row["rig"], rigFile: row["rig_file"], rigSHA256: row["rig_sha256"],
            rigRevision: row["rig_revision"], host: row["host"], radio: row["radio"],
            seed: (row["seed"] as String?).flatMap { UInt64($0) },
            started: Date(timeIntervalSince1970: row["started_at"]),
            ended: (row["ended_at"] as Double?).map(Date.init(timeIntervalSince1970:)),
            benchSeconds: row["bench_seconds"], interruption: row["interruption"], passed: row["passed"],
            failed: row["failed"], errors: row["errors"], skipped: row["skipped"], interrupted: row["interrupted"],
            boards: row["boards"])
    }
}
