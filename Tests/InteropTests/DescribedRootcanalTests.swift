import Foundation
import Radios
import Testing

extension Interop {
    /// Boards described as data (profiles/*.yaml) served as real peers over rootcanal and tested by the real
    /// `blerig` binary through its own HCI host: the generic suites pass on them, as on the virtual farm.
    @Suite("described boards over rootcanal")
    struct DescribedRootcanal {
        static func rig() -> String {
            let profiles = URL(filePath: InteropEnvironment.packageRoot).appending(path: "profiles").path
            return """
                rig: described-rootcanal
                radio: {kind: rootcanal, tick_ms: 1}
                boards:
                  - id: nano-data
                    profile: {file: \(profiles)/nano33-ble.yaml}
                  - id: hrs-01
                    profile: {file: \(profiles)/heart-rate-sensor.yaml}
                suites:
                  - discovery
                  - handshake: {connections: 3}
                  - commands: {repetitions: 2}
                  - notifications: {duration_s: 4}
                  - soak: {duration_h: 0.01, traffic_interval_s: 1}
                  - power: {cycles: 1}
                """
        }

        @Test("blerig runs the shipped data profiles over rootcanal: every generic check passes")
        func campaign() async throws {
            try #require(
                FileManager.default.isExecutableFile(atPath: RootcanalCampaign.binary),
                "\(RootcanalCampaign.binary) is missing: swift build --build-tests")
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "blerig-described-\(UUID().uuidString)"
            ).path
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let rigPath = directory + "/described.yaml"
            try Self.rig().write(toFile: rigPath, atomically: true, encoding: .utf8)
            let out = directory + "/out"

            let (exit, output) = try await withInteropScope { scope in
                var environment = ProcessInfo.processInfo.environment
                environment[InteropVenv.environmentVariable] = try InteropEnvironment.venv().directory
                let blerig = try SupervisedProcess.start(
                    RootcanalCampaign.binary, ["run", rigPath, "--out", out], environment: environment,
                    stdout: try ProcessOutput(), stderr: try ProcessOutput())
                scope.track("blerig run", blerig.pid, marker: [], stop: { await blerig.stop() })
                let clock = ContinuousClock()
                let deadline = clock.now.advanced(by: .seconds(240))
                while blerig.exit == nil, clock.now < deadline { try await clock.sleep(for: .milliseconds(50)) }
                guard let exit = blerig.exit else { throw TestFailure("blerig run did not end within 240 s") }
                return (exit, blerig.stdout.text + blerig.stderr.text)
            }
            #expect(exit == .exited(0), "blerig run: \(RunTranscript(output))")
            let runs = try FileManager.default.contentsOfDirectory(atPath: out).filter { !$0.hasPrefix("history.sqlite") }
            let run = try #require(runs.count == 1 ? out + "/" + runs[0] : nil, "run directories: \(runs)")
            let junit = try String(contentsOfFile: run + "/junit.xml", encoding: .utf8)
            #expect(!junit.contains("<failure") && !junit.contains("<error"), "\(RunTranscript(output))")
            for check in [
                "advertises as nano33-tutorial", "advertises as heart-rate-sensor", "light on/off",
                "control point answers", "Temperature rate and gaps", "Heart Rate Measurement rate and gaps",
                "drop rate", "power cycles recover", "console reports a power-on reset",
            ] {
                #expect(junit.contains("name=\"\(check)\""), "\(check) not in junit.xml")
            }
        }
    }
}
