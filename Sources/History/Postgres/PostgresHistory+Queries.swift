import Foundation
import PostgresNIO
import Reports

extension PostgresHistory {
    /// Runs `sql` with `binds` and hands each row to `transform`.
    func rows<T>(
        _ sql: String, _ binds: [String] = [], _ transform: (PostgresRandomAccessRow) throws -> T
    ) async throws(HistoryError) -> [T] {
        try await perform {
            var bindings = PostgresBindings()
            for bind in binds { bindings.append(bind) }
            var values: [T] = []
            for try await row in try await self.client.query(
                PostgresQuery(unsafeSQL: sql, binds: bindings), logger: self.logger)
            {
                values.append(try transform(row.makeRandomAccess()))
            }
            return values
        }
    }

    public func runs(rig: String?, last: Int?) async throws(HistoryError) -> [RunRecord] {
        var sql = HistoryQueries.runs(rig: rig != nil)
        if let last { sql += " LIMIT \(max(0, last))" }
        return try await rows(sql, rig.map { [$0] } ?? [], Self.run)
    }

    public func run(_ id: String) async throws(HistoryError) -> RunRecord? {
        try await rows(HistoryQueries.run, [id], Self.run).first
    }

    public func boards(run id: String) async throws(HistoryError) -> [BoardRecord] {
        var identity: [String: [IdentityField]] = [:]
        for (board, field) in try await rows(
            HistoryQueries.identity, [id],
            {
                (
                    try $0["board"].decode(String.self),
                    IdentityField(key: try $0["key"].decode(String.self), value: try $0["value"].decode(String.self))
                )
            })
        {
            identity[board, default: []].append(field)
        }
        return try await rows(HistoryQueries.boards, [id]) {
            let board = try $0["board"].decode(String.self)
            return BoardRecord(
                board: board, profile: try $0["profile"].decode(String?.self),
                firmware: try $0["firmware"].decode(String?.self),
                finalState: try $0["final_state"].decode(String?.self),
                identity: identity[board] ?? [])
        }
    }

    public func outcomes(run id: String) async throws(HistoryError) -> [OutcomeRecord] {
        try await rows(HistoryQueries.outcomes, [id]) {
            OutcomeRecord(
                board: try $0["board"].decode(String.self), ordinal: try $0["ordinal"].decode(Int.self),
                suite: try $0["suite"].decode(String.self), test: try $0["test"].decode(String.self),
                attempt: try $0["attempt"].decode(Int.self), isFinal: try $0["final"].decode(Int.self) != 0,
                status: try $0["status"].decode(String.self),
                failureClass: try $0["failure_class"].decode(String?.self).flatMap(FailureClass.init(rawValue:)),
                message: try $0["message"].decode(String.self),
                benchSeconds: try $0["bench_seconds"].decode(Double.self),
                wallSeconds: try $0["wall_seconds"].decode(Double?.self))
        }
    }

    public func values(run id: String, board: String?, metric: String?) async throws(HistoryError) -> [ValueRecord] {
        let sql = HistoryQueries.filtered(
            HistoryQueries.valueColumns, from: "metric_values", board: board != nil, metric: metric != nil)
        return try await rows(sql, [id, board, metric].compactMap { $0 }) {
            ValueRecord(
                board: try $0["board"].decode(String.self), suite: try $0["suite"].decode(String.self),
                test: try $0["test"].decode(String.self), metric: try $0["metric"].decode(String.self),
                statistic: try $0["statistic"].decode(String.self),
                value: try $0["value"].decode(Double?.self) ?? .nan, unit: try $0["unit"].decode(String.self))
        }
    }

    public func samples(run id: String, board: String?, metric: String?) async throws(HistoryError) -> [SamplesRecord] {
        let sql = HistoryQueries.filtered(
            HistoryQueries.sampleColumns, from: "metric_samples", board: board != nil, metric: metric != nil)
        let database = url.description
        return try await rows(sql, [id, board, metric].compactMap { $0 }) { row in
            let encoding = try row["encoding"].decode(String.self)
            let bytes = try row["data"].decode(ByteBuffer.self)
            let data = Data(bytes.readableBytesView)
            let board = try row["board"].decode(String.self)
            let metric = try row["metric"].decode(String.self)
            guard encoding == SampleEncoding.name, let values = SampleEncoding.decode(data) else {
                throw HistoryError(
                    database: database,
                    message: "samples of \(metric) on \(board) in run \(id) are in an encoding this blerig cannot "
                        + "read ('\(encoding)', \(data.count) bytes)")
            }
            return SamplesRecord(
                board: board, suite: try row["suite"].decode(String.self), test: try row["test"].decode(String.self),
                metric: metric, unit: try row["unit"].decode(String.self), values: values)
        }
    }

    public func definitions(run id: String) async throws(HistoryError) -> [String: String] {
        var definitions: [String: String] = [:]
        for (metric, definition) in try await rows(
            HistoryQueries.definitions, [id],
            {
                (try $0["metric"].decode(String.self), try $0["definition"].decode(String.self))
            })
        {
            definitions[metric] = definitions[metric] ?? definition
        }
        return definitions
    }

    public func setBaseline(_ name: String, run: String, by: String) async throws(HistoryError) {
        guard try await self.run(run) != nil else {
            throw HistoryError(database: url.description, message: "no run \(run) in history: see blerig history")
        }
        _ = try await perform {
            try await self.client.query(
                """
                INSERT INTO baselines (name, run_id, set_at, set_by)
                VALUES (\(name), \(run), extract(epoch FROM clock_timestamp())::float8, \(by))
                ON CONFLICT (name) DO UPDATE SET run_id = EXCLUDED.run_id, set_at = EXCLUDED.set_at,
                  set_by = EXCLUDED.set_by
                """, logger: self.logger)
        }
    }

    public func baselines() async throws(HistoryError) -> [BaselineRecord] {
        try await rows(HistoryQueries.baselines) {
            BaselineRecord(
                name: try $0["name"].decode(String.self), runID: try $0["run_id"].decode(String.self),
                setAt: Date(timeIntervalSince1970: try $0["set_at"].decode(Double.self)),
                setBy: try $0["set_by"].decode(String.self))
        }
    }

    static func run(_ row: PostgresRandomAccessRow) throws -> RunRecord {
        RunRecord(
            runID: try row["run_id"].decode(String.self), rig: try row["rig"].decode(String.self),
            rigFile: try row["rig_file"].decode(String.self), rigSHA256: try row["rig_sha256"].decode(String?.self),
            rigRevision: try row["rig_revision"].decode(String?.self), host: try row["host"].decode(String.self),
            radio: try row["radio"].decode(String.self),
            seed: try row["seed"].decode(String?.self).flatMap { UInt64($0) },
            started: Date(timeIntervalSince1970: try row["started_at"].decode(Double.self)),
            ended: try row["ended_at"].decode(Double?.self).map(Date.init(timeIntervalSince1970:)),
            benchSeconds: try row["bench_seconds"].decode(Double?.self),
            interruption: try row["interruption"].decode(String?.self), passed: try row["passed"].decode(Int.self),
            failed: try row["failed"].decode(Int.self), errors: try row["errors"].decode(Int.self),
            skipped: try row["skipped"].decode(Int.self), interrupted: try row["interrupted"].decode(Int.self),
            boards: try row["boards"].decode(Int.self))
    }
}
