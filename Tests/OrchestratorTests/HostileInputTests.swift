import BLECore
import DeviceProfiles
import Foundation
import Testing

@testable import Orchestrator

/// The real `blerig` binary on inputs that used to crash it (SIGILL from a trap, and no junit.xml): each must be a
/// usage error, exit 2 with a message that says what and where, never a signal.
@Suite("blerig on hostile input")
struct HostileInputTests {
    /// Runs blerig; fails the test if it ended by a signal.
    static func blerig(_ arguments: [String]) async throws -> CommandLineTests.Outcome {
        let (process, output, errors) = try CommandLineTests.start(arguments)
        let outcome = await CommandLineTests.finish(process, output, errors)
        #expect(process.terminationReason == .exit, "blerig \(arguments) died of signal \(process.terminationStatus)")
        return outcome
    }

    @Test(
        "durations too long, not finite or not positive are usage errors",
        arguments: [
            (["run", "RIG", "--timeout", "99999999999999999h"], "--timeout: '99999999999999999h' is longer than"),
            (["run", "RIG", "--timeout", "1e300"], "is longer than"), (["run", "RIG", "--timeout", "nan"], "is not a duration"),
            (["run", "RIG", "--timeout=-inf"], "is not a duration"), (["run", "RIG", "--timeout", "0"], "more than zero"),
            (["run", "RIG", "--timeout", "0.1ms"], "shorter than a millisecond"),
            (["scan", "--radio", "virtual:RIG", "--duration", "99999999999999999h"], "--duration:"),
            (["probe", "--radio", "virtual:RIG", "--timeout", "1e30s", "hrm-01"], "--timeout:"),
        ])
    func durations(arguments: [String], expected: String) async throws {
        let rig = try CommandLineTests.rig()
        let outcome = try await Self.blerig(arguments.map { $0.replacingOccurrences(of: "RIG", with: rig) })
        #expect(outcome.status == 2)
        #expect(outcome.errors.contains(expected), "\(outcome.errors)")
    }

    /// Two boards where the second's written address is the first's derived one.
    static func collidingRig() throws -> String {
        let derived = Profile.hrm.modelAddress(forBoard: "hrm-01")
        let yaml = """
            rig: collide
            radio: virtual
            boards:
              - id: hrm-01
                profile: hrm
              - id: hrm-02
                profile: hrm
                virtual: {address: \(derived)}
            suites: [discovery]
            """
        return try RigTesting.temporaryFile(Array(yaml.utf8))
    }

    @Test("two boards at one address: run, validate, scan and probe say where both are and exit 2", arguments: [
        ["run", "RIG", "--out", "OUT"], ["validate", "RIG"], ["scan", "--radio", "virtual:RIG", "--duration", "1"],
        ["probe", "--radio", "virtual:RIG", "--timeout", "1", "hrm-01"],
    ])
    func addressCollision(arguments: [String]) async throws {
        let rig = try Self.collidingRig()
        let outcome = try await Self.blerig(
            arguments.map { $0 == "RIG" ? rig : $0 == "OUT" ? CommandLineTests.output : $0.replacingOccurrences(of: "RIG", with: rig) })
        #expect(outcome.status == 2, "\(outcome.errors)")
        #expect(outcome.errors.contains("\(rig):8:24: board 'hrm-02' would be at"), "\(outcome.errors)")
        #expect(outcome.errors.contains("the address of board 'hrm-01' (derived from its id, at 4:9)"))
    }

    @Test("a 10,000-board rig is checked, not crashed on: run and validate exit 2 naming the collisions")
    func tenThousandBoards() async throws {
        let boards = (0..<10_000).map { "  - {id: board-\($0), profile: esp-point}" }
        let yaml = (["rig: huge", "radio: virtual", "boards:"] + boards + ["suites: [discovery]"]).joined(separator: "\n")
        let rig = try RigTesting.temporaryFile(Array(yaml.utf8))
        for arguments in [["validate", rig], ["run", rig, "--out", CommandLineTests.output]] {
            let outcome = try await Self.blerig(arguments)
            #expect(outcome.status == 2, "\(arguments[0]): \(outcome.errors.prefix(500))")
            #expect(outcome.errors.contains("(derived from its id)"), "\(arguments[0])")
            #expect(outcome.output.isEmpty || arguments[0] == "validate")
        }
    }
}
