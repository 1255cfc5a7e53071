import Foundation
import GRDB

extension SQLiteHistory {
    public func store(_ rows: RunRows) async throws(HistoryError) {
        let database = path
        try await write { db in
            let run = rows.run
            if let host = try String.fetchOne(db, sql: "SELECT host FROM runs WHERE run_id = ?", arguments: [run.runID])
            {
                guard host == run.host else {
                    throw HistoryError(
                        database: database,
                        message: "a run \(run.runID) from host \(host) is already stored; this one is from \(run.host)")
                }
                try db.execute(sql: "DELETE FROM runs WHERE run_id = ?", arguments: [run.runID])
            }
            try db.execute(
                sql: """
                    INSERT INTO runs (run_id, rig, rig_file, rig_sha256, rig_revision, host, radio, seed, started_at,
                      ended_at, bench_seconds, interruption, passed, failed, errors, skipped, interrupted, boards,
                      stored_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    run.runID, run.rig, run.rigFile, run.rigSHA256, run.rigRevision, run.host, run.radio,
                    run.seed.map { String($0) }, run.started.timeIntervalSince1970, run.ended?.timeIntervalSince1970,
                    run.benchSeconds, run.interruption, run.passed, run.failed, run.errors, run.skipped,
                    run.interrupted, run.boards, Date().timeIntervalSince1970,
                ])
            let id = run.runID
            let board = try db.cachedStatement(
                sql: """
                    INSERT INTO boards (run_id, board, position, profile, firmware, final_state)
                    VALUES (?, ?, ?, ?, ?, ?)
                    """)
            let identity = try db.cachedStatement(
                sql: "INSERT INTO board_identity (run_id, board, position, key, value) VALUES (?, ?, ?, ?, ?)")
            for (position, record) in rows.boards.enumerated() {
                try board.execute(arguments: [
                    id, record.board, position, record.profile, record.firmware, record.finalState,
                ])
                for (position, field) in record.identity.enumerated() {
                    try identity.execute(arguments: [id, record.board, position, field.key, field.value])
                }
            }
            let outcome = try db.cachedStatement(
                sql: """
                    INSERT INTO outcomes (run_id, board, ordinal, attempt, suite, test, final, status, failure_class,
                      message, bench_seconds, wall_seconds) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """)
            for record in rows.outcomes {
                try outcome.execute(arguments: [
                    id, record.board, record.ordinal, record.attempt, record.suite, record.test, record.isFinal,
                    record.status, record.failureClass?.rawValue, record.message, record.benchSeconds,
                    record.wallSeconds,
                ])
            }
            let value = try db.cachedStatement(
                sql: """
                    INSERT INTO metric_values (run_id, position, board, suite, test, metric, statistic, value, unit)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """)
            for (position, record) in rows.values.enumerated() {
                try value.execute(arguments: [
                    id, position, record.board, record.suite, record.test, record.metric, record.statistic,
                    record.value.isNaN ? nil : record.value, record.unit,
                ])
            }
            let definition = try db.cachedStatement(
                sql: "INSERT INTO metric_definitions (run_id, metric, unit, definition) VALUES (?, ?, ?, ?)")
            for record in rows.definitions {
                try definition.execute(arguments: [id, record.metric, record.unit, record.definition])
            }
            let samples = try db.cachedStatement(
                sql: """
                    INSERT INTO metric_samples (run_id, position, board, suite, test, metric, unit, count, encoding,
                      data) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """)
            for (position, record) in rows.samples.enumerated() {
                try samples.execute(arguments: [
                    id, position, record.board, record.suite, record.test, record.metric, record.unit,
                    record.values.count, SampleEncoding.name, SampleEncoding.encode(record.values),
                ])
            }
        }
    }
}
