import Crypto
import Foundation
import Orchestrator
import Reports

/// What history records about where a run comes from: the rig file's SHA-256 and the git revision of the
/// repository it is in.
public enum RigProvenance {
    /// The provenance of `rigFile` on host `host`. A file that cannot be read has no hash (the run itself reports
    /// why); a file outside a git repository, or without git installed, has no revision.
    public static func read(rigFile: String, host: String) -> RunProvenance {
        RunProvenance(host: host, rigSHA256: sha256(ofFile: rigFile), rigRevision: gitRevision(of: rigFile))
    }

    /// Lowercase hex SHA-256 of the file's bytes.
    public static func sha256(ofFile path: String) -> String? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
    }

    /// `git -C <directory of path> rev-parse HEAD`, or nil.
    public static func gitRevision(of path: String) -> String? {
        let directory = (path as NSString).deletingLastPathComponent
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["git", "-C", directory.isEmpty ? "." : directory, "rev-parse", "HEAD"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        do { try process.run() } catch { return nil }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        let revision = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return revision.count == 40 || revision.count == 64 ? revision : nil
    }
}

/// Importing a run directory written by `blerig run`.
public enum RunImport {
    /// The run in `directory`/run.jsonl, folded.
    public static func read(directory: String) throws(HistoryError) -> RunRows {
        let path = (directory as NSString).appendingPathComponent("run.jsonl")
        guard let data = FileManager.default.contents(atPath: path) else {
            throw HistoryError(
                database: "-", message: "\(path): cannot read it (is \(directory) a run directory of blerig run?)")
        }
        do {
            let log = try RunLog(jsonLines: data)
            return try RunRows(RunResult(log))
        } catch let error as HistoryError {
            throw HistoryError(database: "-", message: "\(path): \(error.message)")
        } catch {
            throw HistoryError(database: "-", message: "\(path): \(error)")
        }
    }
}
