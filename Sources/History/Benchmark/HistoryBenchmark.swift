import BLECore
import Foundation
import Reports

/// How long history takes to store a large run and read part of it back, on each backend. The run is a real
/// campaign's result with its boards copied until it has the asked-for number of boards (each copy renamed), so
/// its outcomes, values and samples have the shapes and sizes real runs have.
public enum HistoryBenchmark {
    public struct Measurement: Sendable {
        public var backend: String
        /// Each store of the whole run, in order.
        public var inserts: [Duration]
        /// Reading one board's values and samples of one metric back, after the stores.
        public var load: Duration
        /// The database's size after the stores, where the backend tells (the SQLite file and its WAL).
        public var bytes: Int?

        public var medianInsert: Duration { inserts.sorted()[inserts.count / 2] }
    }

    /// `result` with its boards copied to `boards` boards (`esp-01` becomes `esp-01-0007`), as run `runID`.
    public static func enlarge(_ result: RunResult, boards count: Int, runID: String) -> RunResult {
        var enlarged = result
        enlarged.run?.runID = runID
        let source = result.boards
        guard !source.isEmpty else { return enlarged }
        enlarged.boards = (0..<count).map { index in
            var board = source[index % source.count]
            let id = "\(board.id)-\(String(format: "%04d", index))"
            board.id = id
            board.tests = board.tests.map { test in
                var test = test
                test.board = id
                return test
            }
            return board
        }
        return enlarged
    }

    /// `result` with `count` raw samples behind each percentile metric of every check that kept none, spread
    /// between its p50 and p95, so that the stored run carries the sample blobs a run whose suites record their
    /// samples (`CheckRecorder.record`) would.
    public static func fillingSamples(_ result: RunResult, perMetric count: Int) -> RunResult {
        var result = result
        for b in result.boards.indices {
            for t in result.boards[b].tests.indices where result.boards[b].tests[t].samples.isEmpty {
                let test = result.boards[b].tests[t]
                result.boards[b].tests[t].samples = test.measurements.filter { $0.statistic == .p50 }.map { p50 in
                    let p95 = test.measurements.first { $0.metric == p50.metric && $0.statistic == .p95 }?.value
                    let high = p95 ?? p50.value
                    let values = (0..<count).map {
                        p50.value + (high - p50.value) * Double($0) / Double(max(1, count - 1))
                    }
                    return MetricSamples(metric: p50.metric, unit: p50.unit, values: values)
                }
            }
        }
        return result
    }

    /// Stores `result` enlarged to `boards` boards `repeats` times into `history` (each time as a new run), times
    /// each store, reads one board's `metric` back, and deletes nothing: use a scratch database.
    public static func measure(
        _ result: RunResult, boards: Int, repeats: Int, on history: any RunHistory, backend: String, metric: String,
        bytes: () -> Int? = { nil }
    ) async throws(HistoryError) -> Measurement {
        let clock = ContinuousClock()
        var inserts: [Duration] = []
        let stem = "bench-history-\(UUID().uuidString.prefix(8))"
        var lastRun = ""
        for index in 0..<repeats {
            lastRun = "\(stem)-\(index)"
            let rows: RunRows
            do { rows = try RunRows(enlarge(result, boards: boards, runID: lastRun)) } catch {
                throw HistoryError(database: history.location.description, message: error.message)
            }
            let start = clock.now
            try await history.store(rows)
            inserts.append(start.duration(to: clock.now))
        }
        let board = enlarge(result, boards: 1, runID: lastRun).boards.first?.id ?? ""
        let start = clock.now
        _ = try await history.values(run: lastRun, board: board, metric: metric)
        _ = try await history.samples(run: lastRun, board: board, metric: metric)
        let load = start.duration(to: clock.now)
        return Measurement(backend: backend, inserts: inserts, load: load, bytes: bytes())
    }

    /// What a run of `boards` boards made from `result` holds, for the table's heading.
    public static func shape(_ result: RunResult, boards: Int) throws(HistoryError) -> String {
        let rows = try RunRows(enlarge(result, boards: boards, runID: "shape"))
        let samples = rows.samples.reduce(0) { $0 + $1.values.count }
        return "\(rows.boards.count) boards, \(rows.outcomes.count) outcomes, \(rows.values.count) metric values, "
            + "\(rows.samples.count) sample sets (\(samples) samples)"
    }

    /// The table `blerig bench history` prints.
    public static func table(_ measurements: [Measurement], boards: Int) -> [String] {
        var lines = [
            "backend      insert (median)   per board   inserts (each)                 load 1 board   size"
        ]
        for m in measurements {
            let each = m.inserts.map { ms($0) }.joined(separator: ", ")
            let perBoard = m.medianInsert / boards
            lines.append(
                HistoryText.pad(m.backend, 12) + " " + HistoryText.pad(ms(m.medianInsert), 17) + " "
                    + HistoryText.pad(String(format: "%.2f ms", perBoard.milliseconds), 11) + " "
                    + HistoryText.pad(each, 30) + " " + HistoryText.pad(ms(m.load), 14) + " "
                    + (m.bytes.map { String(format: "%.1f MB", Double($0) / 1_048_576) } ?? "-"))
        }
        return lines
    }

    static func ms(_ duration: Duration) -> String { String(format: "%.0f ms", duration.milliseconds) }
}
