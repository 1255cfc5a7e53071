import BLECore
import BenchCore
import CentralStack
import Foundation
import IngestServer
import Radios
import Testing
import VirtualFarm

@testable import Benches

extension Interop {
    /// The sync path in a real process (`blerig sync-agent`) killed with SIGKILL at many points — after each kind
    /// of step: between commit and ACK, between upload and delete, between delete and the next batch — and started
    /// again on the same queue file. An esp-point served on rootcanal holds the readings, the real Hummingbird
    /// ingest runs in this process; at the end the ingest holds every reading exactly once and the board's log is
    /// empty.
    @Suite("sync survives kill -9")
    struct SyncCrash {
        static let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("blerig").path

        /// Kill points: the agent stops after this many progress lines and is killed there. Lines are, in order:
        /// opened, connected, then per READ chunk committed / acked, then per batch uploading / confirmed /
        /// deleted; every run starts where the last died, with 60 new readings on the board.
        static let killPoints = [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 4, 6, 8, 9, 11, 3, 5, 7, 10, 12]

        @Test("killed with SIGKILL at many points during sync, restarted: zero lost, zero duplicates at the ingest")
        func killNine() async throws {
            try #require(
                FileManager.default.isExecutableFile(atPath: Self.binary),
                "\(Self.binary) is missing: swift build --build-tests")
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "blerig-sync-crash-\(UUID().uuidString)"
            ).path
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let queuePath = directory + "/queue.sqlite"
            let server = try await IngestServer.start()
            defer { Task { await server.stop() } }
            let key = (0..<32).map { UInt8($0 &* 7 &+ 3) }

            try await withInteropScope { scope in
                let rootcanal = try await scope.rootcanal()
                let controller = try HCITransportSpec.parse(rootcanal.hciSpec)
                var settings = VirtualBoardSettings(address: DeviceAddress(0x240A_C412_5C01))
                settings.sampleInterval = 86_400
                let board = VirtualBenchConfiguration.Board(id: "esp-crash", profile: .espPoint, settings: settings)
                try await ServedFarm.run(boards: [board], seed: 9, controller: controller, clock: WallClock()) {
                    boards in
                    let served = boards[0]
                    try await served.power?.on()
                    try await Task.sleep(for: .milliseconds(500))
                    let address =
                        "\(served.match.address!.description.replacingOccurrences(of: " (random)", with: ""))/random"
                    var total = 0
                    func fill(_ count: Int) async throws {
                        try await served.console?.send("log-fill \(count)")
                        total += count
                    }
                    func agent(stallAfter: Int?) throws -> SupervisedProcess {
                        var arguments = [
                            "sync-agent", "--radio", rootcanal.hciSpec, "--board", address, "--queue", queuePath,
                            "--ingest", server.url.absoluteString, "--key", Hex.encode(key),
                        ]
                        if let stallAfter { arguments += ["--stall-after", "\(stallAfter)"] }
                        let process = try SupervisedProcess.start(Self.binary, arguments, stdout: try ProcessOutput())
                        scope.track("blerig sync-agent", process.pid, marker: [], stop: { await process.stop() })
                        return process
                    }
                    try await fill(160)
                    var stalls = 0
                    var killedAfter: [String] = []
                    for (index, point) in Self.killPoints.enumerated() {
                        if index > 0 { try await fill(60) }
                        let process = try agent(stallAfter: point)
                        let deadline = ContinuousClock.now.advanced(by: .seconds(30))
                        while !process.stdout.text.contains("stalled"), process.exit == nil,
                            ContinuousClock.now < deadline
                        {
                            try await Task.sleep(for: .milliseconds(5))
                        }
                        let lines = process.stdout.text.split(separator: "\n").map(String.init)
                        if let stalled = lines.firstIndex(of: "stalled"), stalled > 0 {
                            stalls += 1
                            // "7 committed 17 up_to=34" → "committed"
                            killedAfter.append(String(lines[stalled - 1].split(separator: " ").dropFirst().first ?? ""))
                        }
                        kill(-process.pid, SIGKILL)
                        _ = await process.waitForExit(timeout: .seconds(10))
                        #expect(process.exit != nil, "the agent survived SIGKILL")
                    }
                    #expect(stalls >= Self.killPoints.count - 2, "most runs reached their kill point")
                    // The kills landed between commit and ACK, after the ACK, between upload and confirmation,
                    // between confirmation and delete, and after a delete.
                    #expect(
                        Set(killedAfter).isSuperset(of: ["committed", "acked", "uploading", "confirmed", "deleted"]),
                        "killed after: \(killedAfter)")
                    // A last run without a kill point finishes the job.
                    let last = try agent(stallAfter: nil)
                    let exit = await last.waitForExit(timeout: .seconds(60))
                    #expect(exit == .exited(0), "the last agent run failed: \(last.stdout.excerpt())")
                    #expect(last.stdout.text.contains("done"))

                    let held = server.snapshot.held
                    let seqs = held.values.map(\.reading.seq).sorted()
                    #expect(
                        seqs == Array(1...UInt32(total)),
                        "lost: \(Set(1...UInt32(total)).subtracting(seqs).sorted().prefix(10))")
                    #expect(held.count == total)
                    #expect(server.snapshot.conflicts == 0)
                    let queue = try SyncQueue(path: queuePath)
                    #expect(try queue.pendingCount() == 0)
                    #expect(try queue.deadLetters().isEmpty)
                    // Redeliveries are the at-least-once cost of a kill between upload and delete; the ingest
                    // deduped them (held once each, above).
                    print(
                        "sync crash test: \(total) readings, \(stalls) kills after \(killedAfter), "
                            + "\(server.snapshot.redeliveries) redeliveries deduped")
                    try await served.power?.off()
                }
            }
        }
    }
}
