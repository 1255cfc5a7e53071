import Foundation
import History
import Synchronization
import Testing

/// The two backends every history test runs on.
enum Backend: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case sqlite, postgres

    var testDescription: String { self == .sqlite ? "SQLite" : "PostgreSQL" }
}

enum HistoryTesting {
    /// The private PostgreSQL server `make test` starts (Tests/HistoryTests/postgres.sh). Without it the
    /// PostgreSQL cases are skipped, except under CI, where its absence fails them.
    static func postgresServer() throws -> PostgresURL {
        let environment = ProcessInfo.processInfo.environment
        guard let text = environment["BLERIG_TEST_POSTGRES_URL"], !text.isEmpty else {
            if environment["CI"] == "true" {
                Issue.record("BLERIG_TEST_POSTGRES_URL is not set: make test starts PostgreSQL and sets it")
                throw CancellationError()
            }
            try Test.cancel(
                "no PostgreSQL: run Tests/HistoryTests/postgres.sh start DIR and set BLERIG_TEST_POSTGRES_URL")
        }
        return try PostgresURL(text)
    }

    /// A fresh, empty history on `backend`: a new SQLite file, or a new PostgreSQL database (dropped after).
    static func withLocation<T>(
        _ backend: Backend, _ body: (HistoryLocation) async throws -> T
    ) async throws -> T {
        switch backend {
        case .sqlite:
            let directory = temporaryDirectory("history")
            defer { try? FileManager.default.removeItem(atPath: directory) }
            return try await body(.sqlite(path: "\(directory)/history.sqlite"))
        case .postgres:
            let server = try postgresServer()
            let scratch = try await PostgresScratch.create(beside: server, prefix: "blerig_test")
            do {
                let value = try await body(.postgres(scratch))
                try await PostgresScratch.drop(scratch, admin: server)
                return value
            } catch {
                try? await PostgresScratch.drop(scratch, admin: server)
                throw error
            }
        }
    }

    /// A fresh history on `backend`, open for `body`, closed after.
    static func withHistory<T>(_ backend: Backend, _ body: (any RunHistory) async throws -> T) async throws -> T {
        try await withLocation(backend) { location in
            let history = try await History.open(location)
            do {
                let value = try await body(history)
                await history.close()
                return value
            } catch {
                await history.close()
                throw error
            }
        }
    }

    static func temporaryDirectory(_ name: String) -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("blerig-\(name)-\(UUID().uuidString)")
            .path
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// A rig file written to a temporary directory.
    static func rigFile(_ yaml: String) throws -> String {
        let path = "\(temporaryDirectory("rig"))/rig.yaml"
        try yaml.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// Two boards, short suites: a run of a second or two of wall time.
    static func smallRig(
        name: String = "history-farm", seed: Int = 42,
        suites: String = """
          - discovery
          - handshake: {connections: 6}
          - commands: {repetitions: 2}
        """
    ) -> String {
        """
        rig: \(name)
        radio: virtual
        boards:
          - id: esp-01
            profile: esp-point
          - id: hrm-01
            profile: hrm
        virtual:
          seed: \(seed)
        suites:
        \(suites)
        """
    }
}

/// A `blerig` child process whose output is collected as it comes.
final class BlerigProcess: Sendable {
    static let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        .appendingPathComponent("blerig")

    let process: Process
    private let collected = Mutex((output: "", errors: ""))
    private let done = DispatchGroup()

    init(_ arguments: [String], environment: [String: String] = [:]) throws {
        try #require(
            FileManager.default.isExecutableFile(atPath: Self.binary.path),
            "\(Self.binary.path) is missing: build it with `swift build --build-tests` (make test does)")
        let process = Process()
        process.executableURL = Self.binary
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        self.process = process
        try process.run()
        for (pipe, isOutput) in [(output, true), (errors, false)] {
            done.enter()
            Thread { [self] in
                let handle = pipe.fileHandleForReading
                while true {
                    let data = handle.availableData
                    if data.isEmpty { break }
                    let text = String(decoding: data, as: UTF8.self)
                    self.collected.withLock { if isOutput { $0.output += text } else { $0.errors += text } }
                }
                self.done.leave()
            }.start()
        }
    }

    var output: String { collected.withLock { $0.output } }
    var errors: String { collected.withLock { $0.errors } }
    var pid: Int32 { process.processIdentifier }

    /// Waits (off the cooperative pool) for the process to exit and its pipes to close; returns the exit status.
    func wait() async -> Int32 {
        let (process, done) = (process, done)
        return await withCheckedContinuation { continuation in
            Thread {
                process.waitUntilExit()
                done.wait()
                continuation.resume(returning: process.terminationStatus)
            }.start()
        }
    }

    /// Waits up to `seconds` for `text` to appear in the output.
    func waitFor(_ text: String, seconds: Double = 120) async throws {
        let deadline = Date().addingTimeInterval(seconds)
        while !output.contains(text) {
            guard Date() < deadline, process.isRunning else {
                try await Task.sleep(for: .milliseconds(100))
                if output.contains(text) { return }
                Issue.record("'\(text)' did not appear; output:\n\(output)\nerrors:\n\(errors)")
                throw CancellationError()
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}
