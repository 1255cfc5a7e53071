import Foundation
import Orchestrator
import Testing

/// `blerig run --gates` and `blerig gate` as CI calls them: real processes, exit statuses, what they print.
@Suite("Gates on the command line", .serialized)
struct GateCommandLineTests {
    static let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        .appendingPathComponent("blerig")

    struct Outcome {
        var status: Int32
        var output: String
        var errors: String
    }

    /// Runs blerig to its end on a thread of its own (waiting never holds a thread the other tests run on).
    static func blerig(_ arguments: [String], in directory: URL) async throws -> Outcome {
        try #require(
            FileManager.default.isExecutableFile(atPath: binary.path),
            "\(binary.path) is missing: build it with `swift build --build-tests` (make test does)")
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        process.currentDirectoryURL = directory
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        return await withCheckedContinuation { continuation in
            Thread {
                nonisolated(unsafe) var err = Data()
                let group = DispatchGroup()
                group.enter()
                DispatchQueue.global().async {
                    err = errors.fileHandleForReading.readDataToEndOfFile()
                    group.leave()
                }
                let out = output.fileHandleForReading.readDataToEndOfFile()
                group.wait()
                process.waitUntilExit()
                continuation.resume(
                    returning: Outcome(
                        status: process.terminationStatus, output: String(decoding: out, as: UTF8.self),
                        errors: String(decoding: err, as: UTF8.self)))
            }.start()
        }
    }

    static func runDirectory(in output: String) throws -> String {
        let line = try #require(output.split(separator: "\n").first { $0.hasPrefix("reports: ") })
        return String(line.dropFirst("reports: ".count).prefix { $0 != " " }.dropLast())
    }

    @Test("run --gates with an impossible gate exits 4; gate re-judges runs against a baseline run directory")
    func runAndGate() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("blerig-gate-cli-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try GatedCampaignTests.rig().write(
            to: directory.appendingPathComponent("rig.yaml"), atomically: true, encoding: .utf8)
        try GatedCampaignTests.rig(interval: "30").write(
            to: directory.appendingPathComponent("slow.yaml"), atomically: true, encoding: .utf8)
        try "gates:\n  - handshake.ready_ms.p50 <= 1\n".write(
            to: directory.appendingPathComponent("impossible.yaml"), atomically: true, encoding: .utf8)
        try GatedCampaignTests.gates.write(
            to: directory.appendingPathComponent("gates.yaml"), atomically: true, encoding: .utf8)

        let impossible = try await Self.blerig(["run", "rig.yaml", "--gates", "impossible.yaml", "-q"], in: directory)
        #expect(impossible.status == 4, "\(impossible.errors)")
        #expect(impossible.output.contains("BREACHED handshake.ready_ms.p50 <= 1 [rig]"))
        let first = try Self.runDirectory(in: impossible.output)
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent(first + "/gates.json").path))

        let slow = try await Self.blerig(["run", "slow.yaml", "-q"], in: directory)
        #expect(slow.status == 0, "\(slow.errors)")
        let second = try Self.runDirectory(in: slow.output)

        let caught = try await Self.blerig(["gate", second, "--gates", "gates.yaml", "--baseline", first], in: directory)
        #expect(caught.status == 4, "\(caught.output)\(caught.errors)")
        #expect(caught.output.contains("BREACHED handshake.ready_ms.p50 regression: at most +10 % [rig]"))
        let same = try await Self.blerig(["gate", first, "--gates", "gates.yaml", "--baseline", first], in: directory)
        #expect(same.status == 0, "\(same.output)\(same.errors)")
        #expect(same.output.contains("4 held, 0 breached, 0 not enough data"))
        let json = try await Self.blerig(
            ["gate", first, "--gates", "gates.yaml", "--baseline", first, "--json"], in: directory)
        #expect(json.output.contains("\"held\" : 4"))

        let noBaseline = try await Self.blerig(
            ["gate", first, "--gates", "gates.yaml", "--baseline", "no-such-run"], in: directory)
        #expect(noBaseline.status == 2)
        #expect(
            noBaseline.errors.contains("--baseline: 'no-such-run' is neither a run directory nor a baseline in the history"),
            "\(noBaseline.errors)")

        // A named baseline from the history the runs were stored in (reports/history.sqlite): the same verdicts.
        let firstID = URL(fileURLWithPath: first).lastPathComponent
        let named = try await Self.blerig(["baseline", "set", "release", firstID], in: directory)
        #expect(named.status == 0, "\(named.output)\(named.errors)")
        let caughtByName = try await Self.blerig(
            ["gate", second, "--gates", "gates.yaml", "--baseline", "release"], in: directory)
        #expect(caughtByName.status == 4, "\(caughtByName.output)\(caughtByName.errors)")
        #expect(caughtByName.output.contains("BREACHED handshake.ready_ms.p50 regression: at most +10 % [rig]"))
        let sameByName = try await Self.blerig(
            ["gate", first, "--gates", "gates.yaml", "--baseline", "release"], in: directory)
        #expect(sameByName.status == 0, "\(sameByName.output)\(sameByName.errors)")
        #expect(sameByName.output.contains("4 held, 0 breached, 0 not enough data"))
    }

    @Test("a rig whose gates file is missing exits 2 with the rig's line and column; so does a bad --gates file")
    func missingGates() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("blerig-gate-cli-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try GatedCampaignTests.rig(gates: "gates: nowhere.yaml").write(
            to: directory.appendingPathComponent("rig.yaml"), atomically: true, encoding: .utf8)
        let missing = try await Self.blerig(["run", "rig.yaml"], in: directory)
        #expect(missing.status == 2)
        #expect(missing.errors.contains("rig.yaml:13:8: gates file 'nowhere.yaml' does not exist"), "\(missing.errors)")
        try "gates:\n  - handshake.ready_ms.p50 =< 1\n".write(
            to: directory.appendingPathComponent("bad.yaml"), atomically: true, encoding: .utf8)
        try GatedCampaignTests.rig().write(
            to: directory.appendingPathComponent("ok.yaml"), atomically: true, encoding: .utf8)
        let bad = try await Self.blerig(["run", "ok.yaml", "--gates", "bad.yaml"], in: directory)
        #expect(bad.status == 2)
        #expect(bad.errors.contains("bad.yaml:2:28: unknown comparison '=<'"), "\(bad.errors)")
        // Nothing ran: no report directory was made.
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("reports").path))
    }
}
