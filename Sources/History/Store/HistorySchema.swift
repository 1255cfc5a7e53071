/// The history schema: one definition, rendered for SQLite and PostgreSQL alike, as a list of versioned
/// migrations. A database records the versions it has applied (`history_schema`); opening it applies the ones it
/// lacks, in order, in one transaction each. Shipped migrations are never edited: a change is a new migration.
public enum HistorySchema {
    /// The SQL dialects the schema renders to.
    public enum Dialect: Sendable {
        case sqlite, postgres
    }

    /// A column type, rendered per dialect.
    enum ColumnType {
        case text, integer, real, blob

        func sql(_ dialect: Dialect) -> String {
            switch (self, dialect) {
            case (.text, _): "TEXT"
            case (.integer, .sqlite): "INTEGER"
            case (.integer, .postgres): "BIGINT"
            case (.real, .sqlite): "REAL"
            case (.real, .postgres): "DOUBLE PRECISION"
            case (.blob, .sqlite): "BLOB"
            case (.blob, .postgres): "BYTEA"
            }
        }
    }

    struct Column {
        var name: String
        var type: ColumnType
        var nullable = false

        init(_ name: String, _ type: ColumnType, nullable: Bool = false) {
            self.name = name
            self.type = type
            self.nullable = nullable
        }
    }

    enum Statement {
        case table(String, [Column], primaryKey: [String], references: String? = nil)
        case index(String, on: String, [String])

        func sql(_ dialect: Dialect) -> String {
            switch self {
            case .table(let name, let columns, let key, let parent):
                var lines = columns.map { "\($0.name) \($0.type.sql(dialect))\($0.nullable ? "" : " NOT NULL")" }
                lines.append("PRIMARY KEY (\(key.joined(separator: ", ")))")
                if let parent {
                    lines.append("FOREIGN KEY (run_id) REFERENCES \(parent) (run_id) ON DELETE CASCADE")
                }
                return "CREATE TABLE \(name) (\n  \(lines.joined(separator: ",\n  "))\n)"
            case .index(let name, let table, let columns):
                return "CREATE INDEX \(name) ON \(table) (\(columns.joined(separator: ", ")))"
            }
        }
    }

    struct Migration {
        var version: Int
        var name: String
        var statements: [Statement]
    }

    /// The table that records applied migrations; created before any migration runs.
    static func versionTable(_ dialect: Dialect) -> String {
        "CREATE TABLE IF NOT EXISTS history_schema (version \(ColumnType.integer.sql(dialect)) PRIMARY KEY, "
            + "name TEXT NOT NULL, applied_at \(ColumnType.real.sql(dialect)) NOT NULL)"
    }

    /// Every migration ever shipped, oldest first.
    static let migrations: [Migration] = [
        Migration(
            version: 1, name: "runs, boards, outcomes, metric values and samples",
            statements: [
                .table(
                    "runs",
                    [
                        Column("run_id", .text), Column("rig", .text), Column("rig_file", .text),
                        Column("rig_sha256", .text, nullable: true), Column("rig_revision", .text, nullable: true),
                        Column("host", .text), Column("radio", .text), Column("seed", .text, nullable: true),
                        Column("started_at", .real), Column("ended_at", .real, nullable: true),
                        Column("bench_seconds", .real, nullable: true), Column("interruption", .text, nullable: true),
                        Column("passed", .integer), Column("failed", .integer), Column("errors", .integer),
                        Column("skipped", .integer), Column("interrupted", .integer), Column("boards", .integer),
                        Column("stored_at", .real),
                    ], primaryKey: ["run_id"]),
                .index("runs_by_rig", on: "runs", ["rig", "started_at"]),
                .index("runs_by_start", on: "runs", ["started_at"]),
                .table(
                    "boards",
                    [
                        Column("run_id", .text), Column("board", .text), Column("position", .integer),
                        Column("profile", .text, nullable: true),
                        Column("firmware", .text, nullable: true), Column("final_state", .text, nullable: true),
                    ], primaryKey: ["run_id", "board"], references: "runs"),
                .table(
                    "board_identity",
                    [
                        Column("run_id", .text), Column("board", .text), Column("position", .integer),
                        Column("key", .text), Column("value", .text),
                    ], primaryKey: ["run_id", "board", "position"], references: "runs"),
                .table(
                    "outcomes",
                    [
                        Column("run_id", .text), Column("board", .text), Column("ordinal", .integer),
                        Column("attempt", .integer), Column("suite", .text), Column("test", .text),
                        Column("final", .integer), Column("status", .text),
                        Column("failure_class", .text, nullable: true), Column("message", .text),
                        Column("bench_seconds", .real), Column("wall_seconds", .real, nullable: true),
                    ], primaryKey: ["run_id", "board", "ordinal", "attempt"], references: "runs"),
                .table(
                    "metric_values",
                    [
                        Column("run_id", .text), Column("position", .integer), Column("board", .text),
                        Column("suite", .text), Column("test", .text), Column("metric", .text),
                        Column("statistic", .text),
                        // SQLite keeps no NaN (it becomes NULL): NULL reads back as NaN.
                        Column("value", .real, nullable: true), Column("unit", .text),
                    ], primaryKey: ["run_id", "position"], references: "runs"),
                .index("metric_values_by_metric", on: "metric_values", ["run_id", "metric", "board"]),
                .table(
                    "metric_definitions",
                    [
                        Column("run_id", .text), Column("metric", .text), Column("unit", .text),
                        Column("definition", .text),
                    ], primaryKey: ["run_id", "metric", "unit"], references: "runs"),
                .table(
                    "metric_samples",
                    [
                        Column("run_id", .text), Column("position", .integer), Column("board", .text),
                        Column("suite", .text), Column("test", .text), Column("metric", .text), Column("unit", .text),
                        Column("count", .integer), Column("encoding", .text), Column("data", .blob),
                    ], primaryKey: ["run_id", "position"], references: "runs"),
                .index("metric_samples_by_metric", on: "metric_samples", ["run_id", "metric", "board"]),
            ]),
        Migration(
            version: 2, name: "baselines and board leases",
            statements: [
                .table(
                    "baselines",
                    [
                        Column("name", .text), Column("run_id", .text), Column("set_at", .real),
                        Column("set_by", .text),
                    ], primaryKey: ["name"], references: "runs"),
                .table(
                    "leases",
                    [
                        Column("resource", .text), Column("board", .text), Column("owner", .text),
                        Column("token", .text), Column("acquired_at", .real), Column("renewed_at", .real),
                        Column("expires_at", .real),
                    ], primaryKey: ["resource"]),
            ]),
    ]

    /// The newest version this build knows.
    public static var latestVersion: Int { migrations.last?.version ?? 0 }
}
