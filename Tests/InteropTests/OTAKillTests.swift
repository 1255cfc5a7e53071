import BLECore
import BenchCore
import CentralStack
import DeviceProfiles
import Foundation
import Radios
import Testing
import VirtualFarm

@testable import Benches

extension Interop {
    /// An update across a real process death: `blerig central --update` (the app central, saving its state to a
    /// file) sends an image over rootcanal to an esp-point this test serves, is killed with SIGKILL mid-transfer,
    /// and a new process restores the saved state, reconnects without scanning, resumes from the board's persisted
    /// position and ends with the board on the new firmware.
    @Suite("OTA across SIGKILL")
    struct OTAKill {
        static let binary = RootcanalCampaign.binary
        static let version = FirmwareVersion(9, 9, 0)

        /// `progress 40/556 resumes 0` → (40, 556).
        static func progress(_ output: String) -> [(acknowledged: Int, frames: Int)] {
            output.split(separator: "\n").compactMap { line in
                let words = line.split(separator: " ")
                guard words.count == 4, words[0] == "progress" else { return nil }
                let parts = words[1].split(separator: "/").compactMap { Int($0) }
                return parts.count == 2 ? (parts[0], parts[1]) : nil
            }
        }

        /// `update: committed 9.9.0; running 9.9.0; frames sent 312, resumes 0` → 312.
        static func framesSent(_ output: String) -> Int? {
            guard let line = output.split(separator: "\n").last(where: { $0.hasPrefix("update: ") }),
                let start = line.range(of: "frames sent ")
            else { return nil }
            return Int(String(line[start.upperBound...].prefix { $0.isNumber }))
        }

        @Test("a central killed with SIGKILL mid-OTA restores, reconnects without scanning, resumes and commits")
        func killMidUpdate() async throws {
            try #require(
                FileManager.default.isExecutableFile(atPath: Self.binary),
                "\(Self.binary) is missing: swift build --build-tests")
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "blerig-ota-kill-\(UUID().uuidString)"
            ).path
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let state = directory + "/central.json"
            let image = directory + "/image.bin"
            try OTAImageBuilder.write(to: image, size: 128 * 1024, seed: 21)

            try await withInteropScope { scope in
                let rootcanal = try await scope.rootcanal()
                let controller = try HCITransportSpec.parse(rootcanal.hciSpec)
                let settings = VirtualBoardSettings(address: DeviceAddress(0x240A_C412_5C07))
                let board = VirtualBenchConfiguration.Board(id: "esp-ota", profile: .espPoint, settings: settings)
                try await ServedFarm.run(boards: [board], seed: 13, controller: controller, clock: WallClock()) {
                    boards in
                    try await boards[0].power?.on()
                    try await Task.sleep(for: .milliseconds(500))
                    let address =
                        "\(boards[0].match.address!.description.replacingOccurrences(of: " (random)", with: ""))/random"
                    let arguments = [
                        "central", "--radio", rootcanal.hciSpec, "--address", address, "--profile", "esp-point",
                        "--state", state, "--update", image, "--version", "\(Self.version)",
                    ]

                    // The first process pairs, starts the update and is killed once a quarter of it is acknowledged.
                    let first = try Self.start(arguments, scope: scope)
                    try await Self.wait(first, "the first quarter acknowledged") {
                        Self.progress($0).last.map { $0.frames > 0 && $0.acknowledged * 4 >= $0.frames } ?? false
                    }
                    kill(-first.pid, SIGKILL)
                    let exit = await first.waitForExit(timeout: .seconds(10))
                    #expect(exit == .signalled(SIGKILL), "\(String(describing: exit))")
                    await Self.drained(first)
                    let before = first.stdout.text
                    let killedAt = try #require(Self.progress(before).last)
                    #expect(killedAt.acknowledged < killedAt.frames, "the update finished before the kill")
                    #expect(
                        before.contains("state pairedConnected → firmwareUpdating: firmware update began"), "\(before)")
                    let saved = try FileConnectionStateStore(url: URL(fileURLWithPath: state)).load()
                    #expect(saved?.snapshot.state == .firmwareUpdating, "\(String(describing: saved))")

                    // The second restores, goes straight back to the board, resumes where it stands and commits.
                    let second = try Self.start(arguments, scope: scope)
                    let end = await second.waitForExit(timeout: .seconds(300))
                    await Self.drained(second)
                    let output = second.stdout.text
                    #expect(end == .exited(0), "\(String(describing: end))\n\(output)\n\(second.stderr.text)")
                    #expect(output.contains("restoration: restored firmwareUpdating"), "\(output)")
                    #expect(output.contains("→ pairedDisconnected: restored"), "\(output)")
                    #expect(!output.contains("unpairedScanning → pairing"), "the restored central scanned: \(output)")
                    // The first progress line with a frame count is after START: where the board says the transfer stands.
                    let resumed = try #require(Self.progress(output).first { $0.frames > 0 }, "no progress: \(output)")
                    #expect(
                        resumed.acknowledged >= killedAt.acknowledged, "resumed at \(resumed), killed at \(killedAt)")
                    #expect(output.contains("state pairedConnected → firmwareUpdating: firmware update began"))
                    #expect(output.contains("firmwareUpdating → pairedConnected: image activated"), "\(output)")
                    #expect(
                        output.contains("update: committed \(Self.version); running \(Self.version);"), "\(output)")
                    let sent = try #require(Self.framesSent(output), "\(output)")
                    #expect(sent < killedAt.frames, "the second process sent the whole image again: \(sent) frames")
                    print(
                        "ota kill test: killed at \(killedAt.acknowledged)/\(killedAt.frames) acknowledged, resumed at "
                            + "\(resumed.acknowledged), \(sent) frames sent after the restart")
                    try await boards[0].power?.off()
                }
            }
        }

        static func start(_ arguments: [String], scope: InteropScope) throws -> SupervisedProcess {
            let process = try SupervisedProcess.start(
                binary, arguments, stdout: try ProcessOutput(), stderr: try ProcessOutput())
            scope.track("blerig central", process.pid, marker: [], stop: { await process.stop() })
            return process
        }

        /// Waits up to 10 s for the reader to reach the end of the process's output: the exit is reaped apart from
        /// the pipe, so the last lines (`update: committed …`) may still be on their way when `exit` is set.
        static func drained(_ process: SupervisedProcess) async {
            let clock = ContinuousClock()
            let deadline = clock.now.advanced(by: .seconds(10))
            while !(process.stdout.isFinished && process.stderr.isFinished), clock.now < deadline {
                try? await clock.sleep(for: .milliseconds(5))
            }
        }

        /// Waits up to 120 s for the process's output to satisfy `done`.
        static func wait(
            _ process: SupervisedProcess, _ what: String, _ done: (String) -> Bool
        ) async throws {
            let clock = ContinuousClock()
            let deadline = clock.now.advanced(by: .seconds(120))
            while clock.now < deadline {
                if done(process.stdout.text) { return }
                if process.exit != nil { break }
                try await clock.sleep(for: .milliseconds(5))
            }
            throw TestFailure(
                "blerig central: not \(what); stdout:\n\(process.stdout.text)\nstderr:\n\(process.stderr.text)")
        }
    }
}
