import Foundation
import Testing

@testable import Orchestrator

/// `blerig validate`, `--boards` and `--rerun-failed` through the real binary: what CI scripts call.
@Suite("blerig validate, --boards, --rerun-failed")
struct CommandLineSelectionTests {
    /// A rig with a rig-level mistake, a binding conflict and a suite-option mistake: three problems, three places.
    static let threeProblems = """
        rig: three
        radio: virtual
        boards:
          - {id: a, profile: esp-pointt}
          - {id: b, profile: hrm, serial: {port: /dev/ttyUSB0}}
          - {id: c, profile: hrm, serial: {port: /dev/ttyUSB0}}
        suites:
          - handshake: {connections: 0}
          - commands: {repetitionz: 3}
        """

    @Test("validate and run report every problem of the rig at once, suite options included, and exit 2")
    func everyProblemAtOnce() async throws {
        let rig = try RigTesting.temporaryFile(Array(Self.threeProblems.utf8))
        let expected = [
            "\(rig):4:22: unknown profile 'esp-pointt'", "\(rig):6:42: serial port '/dev/ttyUSB0' is already used",
            "\(rig):8:30: 'connections' must be between 1 and 100000, found 0",
            "\(rig):9:16: unknown key 'repetitionz' in commands options",
        ]
        let validate = try await CommandLineTests.blerig(["validate", rig])
        #expect(validate.status == 2)
        #expect(validate.output.isEmpty)
        for line in expected { #expect(validate.errors.contains(line), "\(line) in \(validate.errors)") }
        #expect(validate.errors.hasSuffix("blerig: 4 problems in \(rig)\n"))
        let run = try await CommandLineTests.blerig(["run", rig, "--out", CommandLineTests.output])
        #expect(run.status == 2)
        for line in expected { #expect(run.errors.contains(line), "\(line) in \(run.errors)") }
    }

    @Test("a valid rig validates in one line without running anything")
    func validRig() async throws {
        let outcome = try await CommandLineTests.blerig(["validate", RigTesting.path("rigs/virtual.yaml")])
        #expect(outcome.status == 0, "\(outcome.errors)")
        #expect(
            outcome.output.hasSuffix(
                "rigs/virtual.yaml: rig 'virtual-farm' is valid: 4 boards on 1 radio (virtual), suites discovery, "
                    + "handshake, commands, notifications, sync, alerts, pairing, soak, restore, power, ota\n"))
        #expect(outcome.errors.isEmpty)
    }

    @Test("--boards runs only the boards named; an unknown one is a usage error naming those there are")
    func boards() async throws {
        let rig = try CommandLineTests.rig()
        let out = CommandLineTests.output
        let outcome = try await CommandLineTests.blerig(["run", rig, "--out", out, "--boards", "nano-01"])
        #expect(outcome.status == 0, "\(outcome.errors)")
        #expect(outcome.output.contains("[nano-01] discovery"))
        #expect(!outcome.output.contains("[hrm-01]"))
        let unknown = try await CommandLineTests.blerig(["run", rig, "--out", out, "--boards", "nano-01,hrm-1"])
        #expect(unknown.status == 2)
        #expect(
            unknown.errors
                == "blerig: --boards: unknown board 'hrm-1' (did you mean 'hrm-01'?); \(rig) has hrm-01 and nano-01\n")
        let empty = try await CommandLineTests.blerig(["run", rig, "--out", out, "--boards", ""])
        #expect(empty.status == 2)
        #expect(empty.errors.contains("--boards: name at least one board"))
    }

    @Test("--rerun-failed runs again only the boards and suites that did not pass, by directory or by run id")
    func rerunFailed() async throws {
        let rig = try CommandLineTests.rig(silentNano: true)
        let out = CommandLineTests.output
        let first = try await CommandLineTests.blerig(["run", rig, "--out", out, "--quiet"])
        #expect(first.status == 1)
        let runID = try #require(
            try FileManager.default.contentsOfDirectory(atPath: out).first { !$0.hasPrefix("history.sqlite") })
        for reference in [runID, "\(out)/\(runID)"] {
            let again = try await CommandLineTests.blerig(["run", rig, "--out", out, "--rerun-failed", reference])
            #expect(again.status == 1, "the nano still does not advertise: \(again.errors)")
            #expect(again.output.contains("[nano-01]"))
            #expect(!again.output.contains("[hrm-01]"), "hrm-01 passed everything the first time")
        }
    }

    @Test("--rerun-failed of a run that passed has nothing to run and exits 0; of no run, exits 2")
    func rerunNothing() async throws {
        let rig = try CommandLineTests.rig()
        let out = CommandLineTests.output
        #expect(try await CommandLineTests.blerig(["run", rig, "--out", out]).status == 0)
        let runID = try #require(
            try FileManager.default.contentsOfDirectory(atPath: out).first { !$0.hasPrefix("history.sqlite") })
        let again = try await CommandLineTests.blerig(["run", rig, "--out", out, "--rerun-failed", runID])
        #expect(again.status == 0)
        #expect(again.errors == "blerig: --rerun-failed: nothing to run again: every check of run \(runID) passed\n")
        let runs = try FileManager.default.contentsOfDirectory(atPath: out).filter { !$0.hasPrefix("history.sqlite") }
        #expect(runs.count == 1, "no new run directory")
        let missing = try await CommandLineTests.blerig(["run", rig, "--out", out, "--rerun-failed", "no-such-run"])
        #expect(missing.status == 2)
        #expect(missing.errors.contains("--rerun-failed: 'no-such-run' is neither a run directory nor a run id"))
    }
}
