import Foundation
import Orchestrator
import Radios

/// One of the Bumble peer scripts (``PeerScripts``: `share/blerig/peers/`), run by the interop venv's Python under a
/// ``SupervisedProcess``: it dies with blerig, and it exits by itself when its stdin (the lifeline) closes.
///
/// A script prints one machine-readable line per thing on stdout, `KIND {json}` (`READY` once up, `RESULT` or
/// `ERROR` at the end), and logs to stderr, whose end is quoted in every error.
struct PeerScript: Sendable {
    let name: String
    let process: SupervisedProcess

    /// Starts `name` (e.g. `peripheral.py`) from `directory` with `arguments`, its log level at `logLevel`.
    static func start(
        _ name: String, in directory: String, venv: InteropVenv, _ arguments: [String], logLevel: String = "WARNING"
    ) throws -> PeerScript {
        var environment = ProcessInfo.processInfo.environment
        environment["PYTHONUNBUFFERED"] = "1"
        environment["PYTHONDONTWRITEBYTECODE"] = "1"
        environment["BUMBLE_LOGLEVEL"] = logLevel
        let process = try SupervisedProcess.start(
            venv.python, ["\(directory)/\(name)"] + arguments, environment: environment,
            stdout: try ProcessOutput(headLimit: 1 << 20, tailLimit: 4 << 20, maximumLineLength: 4 << 20),
            stderr: try ProcessOutput(), grace: .seconds(1))
        return PeerScript(name: name, process: process)
    }

    /// Waits for the `number`th stdout line of `kind` (the first unless told) and returns its JSON. An `ERROR` line,
    /// an exit or the timeout fails the wait, quoting the script's log.
    func line(_ kind: String, number: Int = 1, timeout: Duration) async throws(BenchmarkError) -> String {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        while true {
            let exited = process.exit
            var seen = 0
            for line in process.stdout.lines(from: 0).lines {
                if line.hasPrefix("\(kind) ") {
                    seen += 1
                    if seen == number { return String(line.dropFirst(kind.count + 1)) }
                }
                if line.hasPrefix("ERROR ") { throw failure("failed: \(line.dropFirst(6))") }
            }
            if let exited { throw failure("\(exited) without printing \(kind)") }
            guard clock.now < deadline else { throw failure("printed no \(kind) line within \(timeout)") }
            try? await clock.sleep(for: .milliseconds(5))
        }
    }

    /// Decodes a line's JSON (snake_case keys).
    func decode<T: Decodable>(_ type: T.Type, from json: String) throws(BenchmarkError) -> T {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        do {
            return try decoder.decode(T.self, from: Data(json.utf8))
        } catch {
            throw BenchmarkError(
                "\(name) printed JSON that is not a \(T.self): \(error); the line: \(json.prefix(500))")
        }
    }

    func stop() async { await process.stop() }

    private func failure(_ what: String) -> BenchmarkError {
        BenchmarkError("\(name) \(what); its log ends with:\n\(process.stderr.excerpt(lastLines: 15))")
    }
}

/// Where the Bumble peer scripts are. They ship with blerig in `share/blerig/peers/`: under the install prefix
/// (`<prefix>/bin/blerig` finds `<prefix>/share/blerig/peers`) and at the top of the checkout (a build's
/// `.build/debug/blerig` finds the checkout's). The search goes up from the executable's directory, then up from the
/// current directory; the error names every place it looked.
public enum PeerScripts {
    /// Below an install prefix or a checkout.
    public static let relativePath = "share/blerig/peers"
    /// What a directory must hold to be the one (the benchmark's peripheral and central, and their shared code).
    public static let required = ["peripheral.py", "bench_central.py", "peer_common.py"]

    /// The scripts' directory, searched from `executable`'s directory upwards, then from `start` upwards.
    public static func locate(
        executable: String = ChildProcess.currentExecutable,
        from start: String = FileManager.default.currentDirectoryPath
    ) throws(BenchmarkError) -> String {
        var searched: [String] = []
        let origins = [
            URL(filePath: executable).deletingLastPathComponent(), URL(filePath: start, directoryHint: .isDirectory),
        ]
        for origin in origins {
            var directory = origin.standardizedFileURL
            while true {
                let candidate = directory.appending(path: relativePath).path(percentEncoded: false)
                if !searched.contains(candidate) {
                    if holdsScripts(candidate) { return candidate }
                    searched.append(candidate)
                }
                let parent = directory.deletingLastPathComponent()
                if parent.path == directory.path { break }
                directory = parent
            }
        }
        throw BenchmarkError(
            "the Bumble peer scripts (\(required.joined(separator: ", "))) are not in any of "
                + searched.joined(separator: ", ")
                + ": they ship in \(relativePath)/ of the blerig checkout or install prefix; run the blerig built or"
                + " installed there")
    }

    private static func holdsScripts(_ directory: String) -> Bool {
        required.allSatisfy { FileManager.default.fileExists(atPath: "\(directory)/\($0)") }
    }
}
