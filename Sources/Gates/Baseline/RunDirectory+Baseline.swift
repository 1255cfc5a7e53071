import Foundation
import Reports

/// Reading a stored run back: `<dir>/run.jsonl`, folded with ``Reports/RunResult``. Works without any
/// database: a run directory is its own baseline.
public enum StoredRun {
    /// The folded run in `directory` (a run directory, or the path of its `run.jsonl`).
    public static func load(_ directory: String) throws(GateError) -> RunResult {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) else {
            throw GateError("\(directory): no such run directory")
        }
        let path = isDirectory.boolValue ? (directory as NSString).appendingPathComponent("run.jsonl") : directory
        guard let data = FileManager.default.contents(atPath: path) else {
            throw GateError("\(path): cannot be read (a run directory holds the run's run.jsonl)")
        }
        let log: RunLog
        do { log = try RunLog(jsonLines: data) } catch { throw GateError("\(path): \(error)") }
        let result = RunResult(log)
        guard !result.boards.isEmpty else { throw GateError("\(path): the log holds no board's results") }
        return result
    }

    /// The run in `directory` as a baseline named after its run id.
    public static func baseline(_ directory: String) throws(GateError) -> RunBaseline {
        let result = try load(directory)
        let id = result.run?.runID ?? (directory as NSString).lastPathComponent
        return RunBaseline(name: "run \(id) (\(directory))", run: GateRun(result))
    }
}

/// A gates problem that is not in a gates file: a baseline that cannot be read, a run directory without a log.
public struct GateError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
