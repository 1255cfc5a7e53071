import Foundation
import Testing

/// The `blerig` executable as CI calls it: exit status and what it prints. The binary is built next to this test
/// bundle by `swift build --build-tests` (which `make test` runs).
@Suite("blerig command line")
struct CommandLineTests {
    static let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        .appendingPathComponent("blerig")

    struct Outcome {
        var status: Int32
        var output: String
        var errors: String
    }

    static func blerig(_ arguments: [String]) throws -> Outcome {
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
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Outcome(
            status: process.terminationStatus, output: String(decoding: out, as: UTF8.self),
            errors: String(decoding: err, as: UTF8.self))
    }

    static func rig(silentNano: Bool) throws -> String {
        let yaml = """
            rig: cli-test
            radio: virtual
            boards:
              - id: hrm-01
                profile: hrm
              - id: nano-01
                profile: nano33-ble-sense
                virtual: {advertising: \(!silentNano)}
            suites: [discovery, {commands: {repetitions: 1}}]
            """
        return try RigTesting.temporaryFile(Array(yaml.utf8))
    }

    static var output: String {
        FileManager.default.temporaryDirectory.appendingPathComponent("blerig-cli-\(UUID().uuidString)").path
    }

    @Test("every check passing exits 0 and prints the summary and where the reports are")
    func passingRun() throws {
        let outcome = try Self.blerig(["run", try Self.rig(silentNano: false), "--out", Self.output])
        #expect(outcome.status == 0)
        #expect(outcome.errors.isEmpty)
        #expect(outcome.output.contains("[hrm-01] discovery / advertises as hrm: passed"))
        #expect(outcome.output.contains("total   |"))
        #expect(outcome.output.contains("reports: "))
    }

    @Test("an unreachable board exits 1 and names its place in the rig file")
    func failingRun() throws {
        let path = try Self.rig(silentNano: true)
        let outcome = try Self.blerig(["run", path, "--out", Self.output, "--quiet"])
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
    func brokenRig(yaml: String, expected: String) throws {
        let path = try RigTesting.temporaryFile(Array(yaml.utf8))
        let outcome = try Self.blerig(["run", path, "--out", Self.output])
        #expect(outcome.status == 2)
        #expect(outcome.errors.hasPrefix("blerig: \(path)\(expected)"))
        #expect(outcome.errors.filter { $0 == "\n" }.count == 1)
        #expect(outcome.output.isEmpty)
    }

    @Test("--help reads as a manual for each command")
    func help() throws {
        let root = try Self.blerig(["--help"])
        #expect(root.status == 0)
        #expect(root.output.contains("run") && root.output.contains("bench"))
        let run = try Self.blerig(["run", "--help"])
        #expect(run.output.contains("USAGE: blerig run <rig.yaml> [--seed <N>] [--suites <a,b>] [--out <DIR>]"))
        #expect(run.output.contains("Exit status: 0 every check passed"))
    }
}
