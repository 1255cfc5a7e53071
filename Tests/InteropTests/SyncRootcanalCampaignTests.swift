import Foundation
import Radios
import Testing

extension Interop {
    /// The `sync` suite on a wall-clock bench: `blerig run` on rootcanal with an esp-point sampling every second,
    /// uploading over HTTP to the Hummingbird ingest the run starts itself on 127.0.0.1.
    @Suite("the sync suite over rootcanal and the run's own HTTP ingest")
    struct SyncRootcanalCampaign {
        static let rig = """
            rig: sync-rootcanal
            radio: {kind: rootcanal, tick_ms: 1}
            boards:
              - id: esp-01
                profile: esp-point
                virtual: {address: 24:0A:C4:12:1A:2B}
            suites:
              - sync: {offline_days: 0.0001, away_days: 0.0001, pull_interval_h: 0.001, sample_interval_s: 1}

            """

        @Test("blerig run passes the sync checks over HTTP: nothing lost, nothing duplicated; the fault checks skip")
        func syncOverHTTP() async throws {
            let binary = RootcanalCampaign.binary
            try #require(FileManager.default.isExecutableFile(atPath: binary), "\(binary) is missing")
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "blerig-sync-rootcanal-\(UUID().uuidString)"
            ).path
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let rigPath = directory + "/rig.yaml"
            try Self.rig.write(toFile: rigPath, atomically: true, encoding: .utf8)
            let (exit, output) = try await withInteropScope { scope in
                var environment = ProcessInfo.processInfo.environment
                environment[InteropVenv.environmentVariable] = try InteropEnvironment.venv().directory
                let blerig = try SupervisedProcess.start(
                    binary, ["run", rigPath, "--out", directory + "/out"], environment: environment,
                    stdout: try ProcessOutput(), stderr: try ProcessOutput())
                scope.track("blerig run", blerig.pid, marker: [], stop: { await blerig.stop() })
                guard let exit = await blerig.waitForExit(timeout: .seconds(120)) else {
                    throw TestFailure("blerig run did not end within 120 s: \(blerig.stdout.excerpt())")
                }
                return (exit, blerig.stdout.text + blerig.stderr.text)
            }
            #expect(exit == .exited(0), "blerig run: \(RunTranscript(output))")
            for check in [
                "offline: readings queued, no upload attempted", "online: backlog uploaded through outage and failures",
                "ring overflow visible", "no reading lost or duplicated by the central",
            ] {
                #expect(output.contains("[esp-01] sync / \(check): passed"), "\(check): \(output)")
            }
            #expect(output.contains("[esp-01] sync / refused readings dead-lettered and kept: skipped"), "\(output)")
            #expect(output.contains("sync.readings_lost value 0"), "\(output)")
        }
    }
}
