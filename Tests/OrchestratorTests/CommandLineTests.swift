import Benchmarks
import Foundation
import Orchestrator
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The `blerig` executable as CI calls it: exit status and what it prints, signals, pipes and concurrent runs. The
/// binary is built next to this test bundle by `swift build --build-tests` (which `make test` runs).
@Suite("blerig command line")
struct CommandLineTests {
    static let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        .appendingPathComponent("blerig")

    struct Outcome {
        var status: Int32
        var output: String
        var errors: String
    }

    static func start(_ arguments: [String]) throws -> (Process, Pipe, Pipe) {
        try #require(
            FileManager.default.isExecutableFile(atPath: binary.path),
            "\(binary.path) is missing: build it with `swift build --build-tests` (make test does)")
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        return (process, output, errors)
    }

    static func blerig(_ arguments: [String]) async throws -> Outcome {
        let (process, output, errors) = try start(arguments)
        return await finish(process, output, errors)
    }

    /// Runs blocking work on a thread of its own, so waiting for a child process never holds one of the few
    /// threads every other test's tasks run on.
    static func offPool<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: work()) }.start()
        }
    }

    static func finish(_ process: Process, _ output: Pipe, _ errors: Pipe) async -> Outcome {
        await offPool { blockingFinish(process, output, errors) }
    }

    private static func blockingFinish(_ process: Process, _ output: Pipe, _ errors: Pipe) -> Outcome {
        let group = DispatchGroup()
        nonisolated(unsafe) var err = Data()
        group.enter()
        DispatchQueue.global().async {
            err = errors.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        let out = output.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        return Outcome(
            status: process.terminationStatus, output: String(decoding: out, as: UTF8.self),
            errors: String(decoding: err, as: UTF8.self))
    }

    static func rig(
        silentNano: Bool = false, suites: String = "[discovery, {commands: {repetitions: 1}}]"
    ) throws
        -> String
    {
        let yaml = """
            rig: cli-test
            radio: virtual
            boards:
              - id: hrm-01
                profile: hrm
              - id: nano-01
                profile: nano33-ble-sense
                virtual: {advertising: \(!silentNano)}
            suites: \(suites)
            """
        return try RigTesting.temporaryFile(Array(yaml.utf8))
    }

    /// Four boards listening to notifications for a virtual day: long enough in wall time to be interrupted.
    static func dayLongRig() throws -> String {
        try RigTesting.temporaryFile(
            Array(
                try String(contentsOfFile: RigTesting.path("rigs/virtual.yaml"), encoding: .utf8)
                    .replacingOccurrences(of: "  - notifications", with: "  - notifications: {duration_s: 86400}")
                    .utf8))
    }

    static var output: String {
        FileManager.default.temporaryDirectory.appendingPathComponent("blerig-cli-\(UUID().uuidString)").path
    }

    /// The one run directory under `root` (waits up to 60 s for it and for `file` in it to contain `text`).
    static func waitFor(_ text: String, in file: String, under root: String) async throws -> String {
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            // The run's directory, not the history beside it (history.sqlite and its WAL files).
            if let name = try? FileManager.default.contentsOfDirectory(atPath: root)
                .first(where: { !$0.hasPrefix("history.sqlite") }),
                let contents = try? String(contentsOfFile: "\(root)/\(name)/\(file)", encoding: .utf8),
                // Not in the first line: a run log's runStarted names every planned suite and check.
                contents.split(separator: "\n").dropFirst().contains(where: { $0.contains(text) })
            {
                return "\(root)/\(name)"
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw CancellationError()
    }

    @Test("every check passing exits 0 and prints the summary and where the reports are")
    func passingRun() async throws {
        let outcome = try await Self.blerig(["run", try Self.rig(), "--out", Self.output])
        #expect(outcome.status == 0)
        #expect(outcome.errors.isEmpty)
        #expect(outcome.output.contains("[hrm-01] discovery / advertises as hrm: passed"))
        #expect(outcome.output.contains("total   |"))
        #expect(outcome.output.contains("reports: "))
    }

    @Test("an unreachable board exits 1 and names its place in the rig file")
    func failingRun() async throws {
        let path = try Self.rig(silentNano: true)
        let outcome = try await Self.blerig(["run", path, "--out", Self.output, "--quiet"])
        #expect(outcome.status == 1)
        #expect(outcome.output.contains("\(path):6:5: board nano-01 is unreachable"))
    }

    @Test(
        "a broken rig file exits 2 with one line on stderr naming the place",
        arguments: [
            (
                "rig: x\nradio: virtual\nboards:\n  - id: a\n    profile: esp-pointt\nsuites: [discovery]\n",
                ":5:14: unknown profile 'esp-pointt'"
            ),
            ("rig: x\nboards: [\n  - id: a\n", ":3:3: YAML syntax error"),
        ])
    func brokenRig(yaml: String, expected: String) async throws {
        let path = try RigTesting.temporaryFile(Array(yaml.utf8))
        let outcome = try await Self.blerig(["run", path, "--out", Self.output])
        #expect(outcome.status == 2)
        #expect(outcome.errors.hasPrefix("blerig: \(path)\(expected)"))
        #expect(outcome.errors.filter { $0 == "\n" }.count == 1)
        #expect(outcome.output.isEmpty)
    }

    @Test(
        "argument errors exit with the usage status, 2, and say what is wrong",
        arguments: [
            (["nosuchcmd"], "Unexpected argument 'nosuchcmd'"), (["run", "RIG", "--seed", "abc"], "--seed"),
            (["run"], "Missing expected argument"), (["run", "RIG", "--out", ""], "--out must name a directory"),
            (["run", "RIG", "--timeout", "soon"], "--timeout: 'soon' is not a duration"),
            (["bench", "scale", "--sizes", "0"], "'0' is not a count"),
        ])
    func usageErrors(arguments: [String], expected: String) async throws {
        let rig = try Self.rig()
        let outcome = try await Self.blerig(arguments.map { $0 == "RIG" ? rig : $0 })
        #expect(outcome.status == 2)
        #expect(outcome.errors.contains(expected), "\(outcome.errors)")
    }

    @Test("--help reads as a manual for each command and lists the exit statuses")
    func help() async throws {
        let root = try await Self.blerig(["--help"])
        #expect(root.status == 0)
        #expect(root.output.contains("run") && root.output.contains("bench"))
        let run = try await Self.blerig(["run", "--help"])
        #expect(run.output.contains("USAGE: blerig run [<options>] <rig.yaml>"))
        for option in ["--seed <N>", "--suites <a,b>", "--boards <a,b>", "--gates <gates.yaml>", "--history <PATH|URL>"] {
            #expect(run.output.contains(option), "run --help lacks \(option)")
        }
        #expect(run.output.contains("130  interrupted"))
        #expect(run.output.contains("0    every check passed"))
    }

    @Test(
        "a bad --out fails at once, before anything runs, whatever the rig's length",
        arguments: ["file", "/dev/full", "/proc/no-such-dir"])
    func badOut(kind: String) async throws {
        let out = kind == "file" ? try RigTesting.temporaryFile([1], name: "taken") : kind
        let log = try RigTesting.temporaryFile([], name: "blerig.log")
        let rig = try Self.dayLongRig()
        // CPU time says how much the process did before it gave up, whatever else loads the machine meanwhile.
        let cost = try await Self.offPool {
            Result { try ChildProcess.measure(Self.binary.path, ["run", rig, "--out", out], log: log) }
        }.get()
        let printed = try String(contentsOfFile: log, encoding: .utf8)
        #expect(cost.status == 3)
        #expect(printed.hasPrefix("blerig: cannot write \(out)"), "\(printed)")
        #expect(printed.filter { $0 == "\n" }.count == 1)
        #expect(!printed.contains("[esp-01]"))
        #expect(cost.cpu < .seconds(1), "used \(cost.cpu) of CPU")
        #expect(cost.wall < .seconds(30), "took \(cost.wall)")
    }

    @Test(
        "SIGINT or SIGTERM mid-run: interrupted checks marked, reports written, boards off, exit 130",
        arguments: [SIGINT, SIGTERM])
    func signalMidRun(signal number: Int32) async throws {
        let out = Self.output
        let (process, output, errors) = try Self.start(["run", try Self.dayLongRig(), "--out", out])
        let directory = try await Self.waitFor("\"suite\":\"notifications\"", in: "run.jsonl", under: out)
        kill(process.processIdentifier, number)
        let outcome = await Self.finish(process, output, errors)
        #expect(outcome.status == 130)
        let name = number == SIGINT ? "SIGINT" : "SIGTERM"
        #expect(outcome.errors.contains("blerig: \(name) received: stopping"))
        try XMLSchema.expectValid("\(directory)/junit.xml")
        let xml = try String(contentsOfFile: "\(directory)/junit.xml", encoding: .utf8)
        #expect(xml.contains("<error message=\"interrupted: \(name) received\" type=\"interrupted\""))
        #expect(xml.contains("not run: the run was stopped (\(name) received)") || !xml.contains("<skipped"))
        #expect(xml.contains("→ off: run finished; after_run: off"))
        let log = try String(contentsOfFile: "\(directory)/run.jsonl", encoding: .utf8)
        #expect(log.split(separator: "\n").last?.contains("\"interruption\":\"\(name) received\"") == true)
    }

    @Test("two runs at once into the same --out keep both results")
    func concurrentRuns() async throws {
        let out = Self.output
        let rig = try Self.rig()
        let first = try Self.start(["run", rig, "--out", out, "--seed", "3"])
        let second = try Self.start(["run", rig, "--out", out, "--seed", "3"])
        async let a = Self.finish(first.0, first.1, first.2)
        async let b = Self.finish(second.0, second.1, second.2)
        let outcomes = await [a, b]
        #expect(outcomes.map(\.status) == [0, 0])
        let directories = try FileManager.default.contentsOfDirectory(atPath: out)
            .filter { !$0.hasPrefix("history.sqlite") }
        #expect(directories.count == 2)
        for directory in directories {
            let xml = try String(contentsOfFile: "\(out)/\(directory)/junit.xml", encoding: .utf8)
            // Two boards: preflight, discovery (2) and commands each; the bench's open and run.
            #expect(xml.contains("tests=\"10\" failures=\"0\" errors=\"0\""), "\(directory)")
            #expect(outcomes.contains { $0.output.contains("reports: \(out)/\(directory)/") })
        }
    }

    @Test("progress reaches a pipe line by line, and a reader that goes away does not cost the reports")
    func closedPipe() async throws {
        let out = Self.output
        let (process, output, errors) = try Self.start(["run", try Self.dayLongRig(), "--out", out])
        // The first line arrives while the run goes on: stdout is not block-buffered into a pipe.
        let reader = output.fileHandleForReading
        let first = await Self.offPool {
            var first = Data()
            while !first.contains(UInt8(ascii: "\n")) {
                let chunk = reader.availableData
                if chunk.isEmpty { break }
                first += chunk
            }
            return first
        }
        #expect(String(decoding: first, as: UTF8.self).hasPrefix("run cli-test") == false)
        #expect(String(decoding: first, as: UTF8.self).hasPrefix("run virtual-farm-"))
        #expect(process.isRunning)
        // `| head -1`: the reader goes away.
        try output.fileHandleForReading.close()
        let directory = try await Self.waitFor("\"suite\":\"notifications\"", in: "run.jsonl", under: out)
        kill(process.processIdentifier, SIGINT)
        let (errorReader, child) = (errors.fileHandleForReading, process)
        let err = await Self.offPool {
            let data = errorReader.readDataToEndOfFile()
            child.waitUntilExit()
            return data
        }
        #expect(process.terminationStatus == 130, "\(String(decoding: err, as: UTF8.self))")
        try XMLSchema.expectValid("\(directory)/junit.xml")
        #expect(FileManager.default.fileExists(atPath: "\(directory)/summary.txt"))
    }
}
