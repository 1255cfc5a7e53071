/// The SQL the backends share: the same text on SQLite and PostgreSQL but for placeholders, which are written
/// `$1`, `$2`, ... here (both accept them: SQLite reads `$1` as a named parameter `1`, so the SQLite backend binds
/// by position with ``sqlite(_:)``).
enum HistoryQueries {
    static let runColumns = """
        run_id, rig, rig_file, rig_sha256, rig_revision, host, radio, seed, started_at, ended_at, bench_seconds,
        interruption, passed, failed, errors, skipped, interrupted, boards
        """

    /// Newest first, optionally of one rig; `LIMIT` appended by the caller.
    static func runs(rig: Bool) -> String {
        "SELECT \(runColumns) FROM runs" + (rig ? " WHERE rig = $1" : "") + " ORDER BY started_at DESC, run_id DESC"
    }

    static let run = "SELECT \(runColumns) FROM runs WHERE run_id = $1"

    static let boards = """
        SELECT board, profile, firmware, final_state FROM boards WHERE run_id = $1 ORDER BY position
        """

    static let identity = """
        SELECT board, key, value FROM board_identity WHERE run_id = $1 ORDER BY board, position
        """

    static let outcomes = """
        SELECT board, ordinal, attempt, suite, test, final, status, failure_class, message, bench_seconds,
          wall_seconds FROM outcomes WHERE run_id = $1 ORDER BY board, ordinal, attempt
        """

    /// Values or samples of a run, optionally of one board and one metric, in the order stored.
    static func filtered(_ columns: String, from table: String, board: Bool, metric: Bool) -> String {
        var sql = "SELECT \(columns) FROM \(table) WHERE run_id = $1"
        var next = 2
        if board {
            sql += " AND board = $\(next)"
            next += 1
        }
        if metric { sql += " AND metric = $\(next)" }
        return sql + " ORDER BY position"
    }

    static let valueColumns = "board, suite, test, metric, statistic, value, unit"
    static let sampleColumns = "board, suite, test, metric, unit, encoding, data"

    static let definitions = "SELECT metric, definition FROM metric_definitions WHERE run_id = $1 ORDER BY metric"

    static let baselines = "SELECT name, run_id, set_at, set_by FROM baselines ORDER BY name"

    static let leases = """
        SELECT resource, board, owner, token, acquired_at, renewed_at, expires_at FROM leases ORDER BY resource
        """

    /// `sql` with `$N` placeholders turned into SQLite's positional `?` (they appear in order, each once).
    static func sqlite(_ sql: String) -> String {
        var out = ""
        var iterator = sql.makeIterator()
        var pending: Character? = nil
        while let character = pending ?? iterator.next() {
            pending = nil
            guard character == "$" else {
                out.append(character)
                continue
            }
            out.append("?")
            while let digit = iterator.next() {
                if !digit.isNumber {
                    pending = digit
                    break
                }
            }
        }
        return out
    }
}
