import BLECore
import BenchCore
import CentralStack
import Foundation
import Radios
import Testing
import VirtualFarm

@testable import Benches

extension Interop {
    /// State restoration across a real process death: `blerig central` (the connection state machine, saving to a
    /// file) connects over rootcanal to a board this test serves, is killed with SIGKILL mid-connection, and a
    /// new `blerig central` process restores from the file and reconnects to the known board without scanning.
    @Suite("state restoration across SIGKILL")
    struct RestorationKill {
        static let binary = RootcanalCampaign.binary

        @Test("a central killed with SIGKILL mid-connection is restored from its file by the next process")
        func killAndRestore() async throws {
            try #require(
                FileManager.default.isExecutableFile(atPath: Self.binary),
                "\(Self.binary) is missing: swift build --build-tests")
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "blerig-restore-\(UUID().uuidString)"
            ).path
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let state = directory + "/central.json"

            try await withInteropScope { scope in
                let rootcanal = try await scope.rootcanal()
                let controller = try HCITransportSpec.parse(rootcanal.hciSpec)
                let board = VirtualBenchConfiguration.Board(id: "nano-01", profile: .nano33BLESense)
                try await ServedFarm.run(boards: [board], seed: 11, controller: controller, clock: WallClock()) {
                    boards in
                    try await boards[0].power?.on()
                    let address = try #require(boards[0].match.address)
                    let arguments = [
                        "central", "--radio", rootcanal.hciSpec, "--address", "\(address)", "--profile",
                        "nano33-ble-sense", "--state", state,
                    ]

                    // The first process pairs (no state yet), connects, saves; then it is killed outright.
                    let first = try Self.start(arguments, scope: scope)
                    try await Self.line(first, containing: "→ pairedConnected")
                    // The line is printed as the machine moves; the save that follows may land a moment later on a
                    // loaded host. The kill is meant to come after it.
                    let saved = try await Self.saved(state, reaching: .pairedConnected)
                    #expect(saved?.snapshot.state == .pairedConnected)
                    #expect(saved?.snapshot.connected == address.description)
                    kill(-first.pid, SIGKILL)
                    let exit = await first.waitForExit(timeout: .seconds(10))
                    #expect(exit == .signalled(SIGKILL), "\(String(describing: exit))")
                    #expect(first.stdout.text.contains("restoration: no saved state"))

                    // The second restores the connected state and goes straight back to the board.
                    let second = try Self.start(arguments, scope: scope)
                    try await Self.line(second, containing: "pairedDisconnected → pairedConnected")
                    let output = second.stdout.text
                    #expect(output.contains("restoration: restored pairedConnected with \(address)"), "\(output)")
                    #expect(output.contains("state unpairedScanning → pairedDisconnected: restored (was connected"))
                    #expect(!output.contains("pairing"), "the restored central scanned and paired again: \(output)")
                    await second.stop()
                }
            }
        }

        static func start(_ arguments: [String], scope: InteropScope) throws -> SupervisedProcess {
            let process = try SupervisedProcess.start(
                binary, arguments, stdout: try ProcessOutput(), stderr: try ProcessOutput())
            scope.track("blerig central", process.pid, marker: [], stop: { await process.stop() })
            return process
        }

        /// The state saved at `path` once it reaches `state`, or the last one read after 10 s.
        static func saved(_ path: String, reaching state: ConnectionState) async throws -> SavedConnectionState? {
            let store = FileConnectionStateStore(url: URL(fileURLWithPath: path))
            let deadline = ContinuousClock.now.advanced(by: .seconds(10))
            var saved = try store.load()
            while saved?.snapshot.state != state, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
                saved = try store.load()
            }
            return saved
        }

        /// Waits up to 30 s for a line of the process's output containing `text`.
        static func line(_ process: SupervisedProcess, containing text: String) async throws {
            let clock = ContinuousClock()
            let deadline = clock.now.advanced(by: .seconds(30))
            while clock.now < deadline {
                if process.stdout.text.contains(text) { return }
                if process.exit != nil { break }
                try await clock.sleep(for: .milliseconds(20))
            }
            throw TestFailure(
                "no line with '\(text)' from blerig central; stdout:\n\(process.stdout.text)\nstderr:\n\(process.stderr.text)"
            )
        }
    }
}
