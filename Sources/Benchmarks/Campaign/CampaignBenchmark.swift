import Foundation
import Orchestrator

/// Measures whole `blerig run` invocations, each in its own process so that its peak memory and CPU time are its
/// own: what `blerig bench` prints.
public enum CampaignBenchmark {
    /// One measured run.
    public struct Sample: Sendable {
        public var cost: ProcessCost
        /// Bench time the run covered (virtual time on the virtual farm), from its run log.
        public var benchTime: Duration
        /// Checks in the run's junit.xml, and how many did not pass.
        public var checks: Int
        public var notPassed: Int
        /// The run's report directory (removed when the benchmark was given a scratch directory to clean).
        public var directory: String
    }

    /// Runs `executable run <rig> --out <scratch> --quiet <extra>` and measures it.
    public static func measure(
        executable: String, rig: String, extra: [String] = [], scratch: String, cores: Int? = nil
    ) throws -> Sample {
        let out = (scratch as NSString).appendingPathComponent("reports")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let before = Set((try? FileManager.default.contentsOfDirectory(atPath: out)) ?? [])
        let log = (scratch as NSString).appendingPathComponent("run.log")
        let cost = try ChildProcess.measure(
            executable, ["run", rig, "--out", out, "--quiet"] + extra, log: log, cores: cores)
        let after = Set((try? FileManager.default.contentsOfDirectory(atPath: out)) ?? [])
        // The run's report directory; beside it the run may have created the history store (history.sqlite …).
        let created = after.subtracting(before).filter { name in
            var isDirectory: ObjCBool = false
            let path = (out as NSString).appendingPathComponent(name)
            return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
        }
        guard let name = created.first else {
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            throw BenchmarkError("the run wrote no report directory (exit \(cost.status)): \(text.prefix(500))")
        }
        let directory = (out as NSString).appendingPathComponent(name)
        guard ExitStatus(rawValue: cost.status) != nil else {
            throw BenchmarkError("the run ended with status \(cost.status); its output is in \(log)")
        }
        let (tests, notPassed) = try junitCounts((directory as NSString).appendingPathComponent("junit.xml"))
        return Sample(
            cost: cost, benchTime: try benchTime((directory as NSString).appendingPathComponent("run.jsonl")),
            checks: tests, notPassed: notPassed, directory: directory)
    }

    /// The `at` of the run log's last event (`runFinished`), read from the end of the file only.
    static func benchTime(_ path: String) throws -> Duration {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw BenchmarkError("cannot read \(path)") }
        defer { try? handle.close() }
        let size = (try? handle.seekToEnd()) ?? 0
        try handle.seek(toOffset: size > 4096 ? size - 4096 : 0)
        let tail = String(decoding: try handle.readToEnd() ?? Data(), as: UTF8.self)
        guard let last = tail.split(separator: "\n").last(where: { $0.contains("\"runFinished\"") }),
            let object = try JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any],
            let at = (object["at"] as? String).flatMap(Double.init) ?? (object["at"] as? Double)
        else { throw BenchmarkError("\(path) does not end with a runFinished event") }
        // Rig times are written as decimal seconds in a string, to the nanosecond.
        return .nanoseconds(Int64((at * 1e9).rounded()))
    }

    /// `tests` and `failures + errors` of the root element.
    static func junitCounts(_ path: String) throws -> (Int, Int) {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw BenchmarkError("cannot read \(path)") }
        defer { try? handle.close() }
        let head = String(decoding: try handle.read(upToCount: 1024) ?? Data(), as: UTF8.self)
        func attribute(_ name: String) -> Int {
            guard let range = head.range(of: " \(name)=\"") else { return 0 }
            return Int(head[range.upperBound...].prefix { $0.isNumber }) ?? 0
        }
        return (attribute("tests"), attribute("failures") + attribute("errors"))
    }
}
