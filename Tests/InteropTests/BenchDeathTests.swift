import BLECore
import Foundation
import Radios
import Reports
import Testing

extension Interop {
    /// A part of a real bench dying while the real `blerig` binary runs on it: rootcanal killed, the
    /// `python -m rootcanal` that blerig started killed, the controller's transport closed under it. Each must be
    /// noticed at once: the checks in flight end as infrastructure errors with the cause, no check passes on
    /// numbers from the failed window, and the run exits 3 with every report written.
    @Suite("a bench part dies mid-run")
    struct BenchDeath {
        enum Victim: String, CaseIterable, Sendable, CustomStringConvertible {
            /// The rootcanal binary blerig started (a grandchild of blerig).
            case rootcanal
            /// The `python -m rootcanal` process blerig started, which runs the binary.
            case pythonWrapper = "python -m rootcanal"
            /// A rootcanal the test started and the rig names by its transport: its socket closes under blerig.
            case controllerTransport = "the controller's transport"

            var description: String { rawValue }
        }

        static let suites = """

            suites:
              - discovery
              - handshake: {connections: 2}
              - soak: {duration_h: 0.05, traffic_interval_s: 1}
              - commands

            """

        @Test("killing a part of the bench mid-run: infrastructure errors at once, no pass after, exit 3",
              arguments: Victim.allCases)
        func partDies(victim: Victim) async throws {
            let binary = RootcanalCampaign.binary
            try #require(FileManager.default.isExecutableFile(atPath: binary), "\(binary) is missing")
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "blerig-death-\(UUID().uuidString)"
            ).path
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let out = directory + "/out"

            try await withInteropScope { scope in
                var radio = "{kind: rootcanal, tick_ms: 1}"
                var external: RootcanalProcess?
                if victim == .controllerTransport {
                    let rootcanal = try await scope.rootcanal()
                    external = rootcanal
                    radio = "{kind: rootcanal, transport: \"tcp:127.0.0.1:\(rootcanal.hciPort)\"}"
                }
                let rig = """
                    rig: death
                    radio: \(radio)
                    boards:
                      - {id: esp-01, profile: esp-point}
                      - {id: hrm-01, profile: hrm}
                    """ + Self.suites
                let rigPath = directory + "/death.yaml"
                try rig.write(toFile: rigPath, atomically: true, encoding: .utf8)
                var environment = ProcessInfo.processInfo.environment
                environment[InteropVenv.environmentVariable] = try InteropEnvironment.venv().directory
                let blerig = try SupervisedProcess.start(
                    binary, ["run", rigPath, "--out", out], environment: environment, stdout: try ProcessOutput(),
                    stderr: try ProcessOutput())
                scope.track("blerig run", blerig.pid, marker: [], stop: { await blerig.stop() })

                // Wait until the soak (minutes long) is under way, then kill the victim.
                let clock = ContinuousClock()
                let deadline = clock.now.advanced(by: .seconds(90))
                var log = ""
                func soakStarted(_ log: String) -> Bool {
                    log.split(separator: "\n").contains {
                        $0.contains("\"event\":\"testStarted\"") && $0.contains("\"suite\":\"soak\"")
                    }
                }
                while blerig.exit == nil, clock.now < deadline, !soakStarted(log) {
                    try await clock.sleep(for: .milliseconds(100))
                    log = Self.runLog(in: out) ?? ""
                }
                try #require(blerig.exit == nil, "blerig ended before the soak: \(blerig.stdout.text)\(blerig.stderr.text)")
                try #require(soakStarted(log), "the soak did not start within 90 s")
                try await clock.sleep(for: .seconds(2))
                let killed = clock.now
                switch victim {
                case .rootcanal, .pythonWrapper:
                    let name = victim == .rootcanal ? "rootcanal" : "python"
                    let target = ProcessTable.livingDescendants(of: blerig.pid).first { $0.name.hasPrefix(name) }
                    let pid = try #require(target?.pid, "no \(name) among blerig's descendants")
                    kill(pid, SIGKILL)
                case .controllerTransport:
                    await external?.stop()
                }
                guard let exit = await blerig.waitForExit(timeout: .seconds(30)) else {
                    Issue.record("blerig went on for 30 s after \(victim) was killed")
                    return
                }
                let after = killed.duration(to: clock.now)
                let output = blerig.stdout.text + blerig.stderr.text
                #expect(exit == .exited(3), "\(output)")
                // Noticed at once: the soak had minutes to go; the run ended soon after.
                #expect(after < .seconds(10), "blerig took \(after) to end after \(victim) was killed")

                let text = try #require(Self.runLog(in: out))
                let result = RunResult(try RunLog(jsonLines: text))
                let tests = result.boards.flatMap(\.tests)
                let errors = tests.filter { $0.failureClass == .infrastructure }
                #expect(!errors.isEmpty, "no infrastructure error: \(tests.map { "\($0.suite).\($0.name) \($0.outcome)" })")
                #expect(tests.allSatisfy { $0.failureClass != .test }, "a product defect was blamed")
                // The fault's instant, from the first infrastructure error's message ("… failed at t+…ms: …").
                let soaks = tests.filter { $0.suite == "soak" }
                #expect(soaks.allSatisfy { $0.outcome != .passed }, "a soak check passed: \(soaks.map(\.outcome))")
                #expect(
                    soaks.allSatisfy { $0.measurements.isEmpty }, "a soak number was reported: \(soaks.map(\.measurements))")
                let stopped = result.finished?.interruption ?? ""
                #expect(!stopped.isEmpty, "the run's end says nothing of the fault")
                let junit = try String(contentsOfFile: Self.runDirectory(in: out)! + "/junit.xml", encoding: .utf8)
                #expect(junit.contains("<error"), "the JUnit shows no error")
            }
        }

        static func runDirectory(in out: String) -> String? {
            // The run's directory, not the history stored beside it (history.sqlite and its WAL files).
            guard let runs = try? FileManager.default.contentsOfDirectory(atPath: out).filter({ !$0.hasPrefix("history.sqlite") }),
                runs.count == 1
            else {
                return nil
            }
            return out + "/" + runs[0]
        }

        static func runLog(in out: String) -> String? {
            runDirectory(in: out).flatMap { try? String(contentsOfFile: $0 + "/run.jsonl", encoding: .utf8) }
        }
    }
}
