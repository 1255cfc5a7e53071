import Foundation
import PostgresNIO

/// Storing a run in PostgreSQL: one transaction; each child table filled by a few `INSERT … SELECT FROM
/// unnest(…)` statements that carry thousands of rows as array parameters, instead of a round trip per row.
extension PostgresHistory {
    /// Rows per statement: large enough that round trips do not dominate, small enough to bound the message.
    static let chunk = 10_000

    public func store(_ rows: RunRows) async throws(HistoryError) {
        let url = url
        try await perform {
            try await self.client.withTransaction(logger: self.logger) { connection in
                let run = rows.run
                let id = run.runID
                for try await host in try await connection.query(
                    "SELECT host FROM runs WHERE run_id = \(id) FOR UPDATE", logger: self.logger
                ).decode(String.self) {
                    guard host == run.host else {
                        throw HistoryError(
                            database: url.description,
                            message: "a run \(id) from host \(host) is already stored; this one is from \(run.host)")
                    }
                }
                try await connection.query("DELETE FROM runs WHERE run_id = \(id)", logger: self.logger)
                let seed = run.seed.map { String($0) }
                try await connection.query(
                    """
                    INSERT INTO runs (run_id, rig, rig_file, rig_sha256, rig_revision, host, radio, seed, started_at,
                      ended_at, bench_seconds, interruption, passed, failed, errors, skipped, interrupted, boards,
                      stored_at)
                    VALUES (\(id), \(run.rig), \(run.rigFile), \(run.rigSHA256), \(run.rigRevision), \(run.host),
                      \(run.radio), \(seed), \(run.started.timeIntervalSince1970),
                      \(run.ended?.timeIntervalSince1970), \(run.benchSeconds), \(run.interruption), \(run.passed),
                      \(run.failed), \(run.errors), \(run.skipped), \(run.interrupted), \(run.boards),
                      extract(epoch FROM clock_timestamp())::float8)
                    """, logger: self.logger)
                try await self.insertBoards(rows, on: connection)
                try await self.insertOutcomes(rows, on: connection)
                try await self.insertValues(rows, on: connection)
                try await self.insertSamples(rows, on: connection)
            }
        }
    }

    private func insertBoards(_ rows: RunRows, on connection: PostgresConnection) async throws {
        let id = rows.run.runID
        let boards = rows.boards
        try await connection.query(
            """
            INSERT INTO boards (run_id, board, position, profile, firmware, final_state)
            SELECT \(id), b, p, NULLIF(pr, ''), NULLIF(f, ''), NULLIF(s, '')
            FROM unnest(\(boards.map(\.board)), \(Array(0..<boards.count)), \(boards.map { $0.profile ?? "" }),
              \(boards.map { $0.firmware ?? "" }), \(boards.map { $0.finalState ?? "" })) AS t(b, p, pr, f, s)
            """, logger: logger)
        let fields = boards.flatMap { board in board.identity.enumerated().map { (board.board, $0, $1) } }
        for start in stride(from: 0, to: fields.count, by: Self.chunk) {
            let part = fields[start..<min(start + Self.chunk, fields.count)]
            try await connection.query(
                """
                INSERT INTO board_identity (run_id, board, position, key, value)
                SELECT \(id), * FROM unnest(\(part.map(\.0)), \(part.map(\.1)), \(part.map(\.2.key)),
                  \(part.map(\.2.value)))
                """, logger: logger)
        }
    }

    private func insertOutcomes(_ rows: RunRows, on connection: PostgresConnection) async throws {
        let id = rows.run.runID
        for start in stride(from: 0, to: rows.outcomes.count, by: Self.chunk) {
            let part = rows.outcomes[start..<min(start + Self.chunk, rows.outcomes.count)]
            try await connection.query(
                """
                INSERT INTO outcomes (run_id, board, ordinal, attempt, suite, test, final, status, failure_class,
                  message, bench_seconds, wall_seconds)
                SELECT \(id), b, o, a, s, t, f, st, NULLIF(fc, ''), m, bs, CASE WHEN hw THEN ws END
                FROM unnest(\(part.map(\.board)), \(part.map(\.ordinal)), \(part.map(\.attempt)),
                  \(part.map(\.suite)), \(part.map(\.test)), \(part.map { $0.isFinal ? 1 : 0 }),
                  \(part.map(\.status)), \(part.map { $0.failureClass?.rawValue ?? "" }), \(part.map(\.message)),
                  \(part.map(\.benchSeconds)), \(part.map { $0.wallSeconds != nil }),
                  \(part.map { $0.wallSeconds ?? 0 })) AS x(b, o, a, s, t, f, st, fc, m, bs, hw, ws)
                """, logger: logger)
        }
    }

    private func insertValues(_ rows: RunRows, on connection: PostgresConnection) async throws {
        let id = rows.run.runID
        for start in stride(from: 0, to: rows.values.count, by: Self.chunk) {
            let part = rows.values[start..<min(start + Self.chunk, rows.values.count)]
            try await connection.query(
                """
                INSERT INTO metric_values (run_id, position, board, suite, test, metric, statistic, value, unit)
                SELECT \(id), * FROM unnest(\(Array(part.indices)), \(part.map(\.board)), \(part.map(\.suite)),
                  \(part.map(\.test)), \(part.map(\.metric)), \(part.map(\.statistic)), \(part.map(\.value)),
                  \(part.map(\.unit)))
                """, logger: logger)
        }
        let definitions = rows.definitions
        try await connection.query(
            """
            INSERT INTO metric_definitions (run_id, metric, unit, definition)
            SELECT \(id), * FROM unnest(\(definitions.map(\.metric)), \(definitions.map(\.unit)),
              \(definitions.map(\.definition)))
            """, logger: logger)
    }

    private func insertSamples(_ rows: RunRows, on connection: PostgresConnection) async throws {
        let id = rows.run.runID
        for start in stride(from: 0, to: rows.samples.count, by: Self.chunk) {
            let part = rows.samples[start..<min(start + Self.chunk, rows.samples.count)]
            let blobs = part.map { ByteBuffer(bytes: SampleEncoding.encode($0.values)) }
            try await connection.query(
                """
                INSERT INTO metric_samples (run_id, position, board, suite, test, metric, unit, count, encoding, data)
                SELECT \(id), p, b, s, t, m, u, c, \(SampleEncoding.name), d
                FROM unnest(\(Array(part.indices)), \(part.map(\.board)), \(part.map(\.suite)), \(part.map(\.test)),
                  \(part.map(\.metric)), \(part.map(\.unit)), \(part.map(\.values.count)), \(blobs))
                  AS x(p, b, s, t, m, u, c, d)
                """, logger: logger)
        }
    }
}
