import Foundation
import Testing

@testable import Orchestrator

/// `soak` and `restore` through the app central: the machine's path in each board's `<system-out>`, and, in the
/// suites' sources, no connection shell, machine or session of their own — a suite that drove the shell directly
/// again would show the same transitions, so the sources are checked too.
extension AppCentralSuitesTests {
    static let soakHours = 2.0

    @Test("soak's system-out shows the app central holding the link: every drop the machine's, every reconnect too")
    func soakRunsThroughTheAppCentral() async throws {
        let result = try await CampaignTests.run(
            """
            rig: app-central-soak
            radio: virtual
            boards:
              - {id: esp-01, profile: esp-point}
              - {id: nano-01, profile: nano33-ble-sense}
              - {id: hrs-01, profile: {file: \(DescribedBoardFarmTests.profiles)/heart-rate-sensor.yaml}}
            virtual: {seed: 11, faults: {drops_per_hour: 6}}
            suites:
              - soak: {duration_h: \(Self.soakHours), traffic_interval_s: 60}
            """)
        #expect(result.result.failingCheckLines() == [])
        var drops = 0
        for board in result.result.boards {
            let place = "soak on \(board.id)"
            let out = try AppCentralTransitionsTests.systemOut(board: board.id, in: result.directory)
            let moves = try AppCentralTransitionsTests.centralMoves(board: board.id, in: result.directory)
            let raw = out.split(separator: "\n").filter { $0.contains(" state    ") }
                .filter { !$0.contains("central.") && $0.contains("→ connected") }
            #expect(raw.isEmpty, "\(place) opened raw sessions: \(raw)")
            try #require(moves.count >= 2, "\(place): \(moves)")
            #expect(moves[0].from == "unpairedScanning" && moves[0].to == "pairing", "\(place): \(moves)")
            #expect(moves[1].to == "pairedConnected" && moves[1].cause.hasPrefix("paired with "), "\(place)")
            // Kept connected: no link is closed by the app; each later connect follows a lost link.
            #expect(!moves.contains { $0.cause.hasPrefix("link closed") }, "\(place): \(moves)")
            let connects = moves.indices.filter { moves[$0].to == "pairedConnected" }
            for index in connects.dropFirst() {
                #expect(moves[index].cause.contains("after the drop"), "\(place): \(moves[index])")
                #expect(moves[index - 1].cause.hasPrefix("link lost"), "\(place): \(moves[index - 1])")
            }
            // The soak's figures are the machine's: its sessions and its lost links.
            let values = Dictionary(
                board.tests.flatMap(\.measurements).map { ("\($0.metric) \($0.statistic)", $0.value) },
                uniquingKeysWith: { a, _ in a })
            #expect(values["link.sessions count"] == Double(connects.count), "\(place): \(values)")
            let lost = moves.count { $0.cause.hasPrefix("link lost") }
            #expect(values["link.drops count"] == Double(lost), "\(place): \(values)")
            drops += lost
        }
        #expect(drops > 0, "6 drops/h over \(Self.soakHours) h on three boards, and none seen")
    }

    @Test("restore's system-out shows two app centrals: one pairs and is killed, one restores and closes when done")
    func restoreRunsThroughTheAppCentral() async throws {
        let result = try await CampaignTests.run(
            """
            rig: app-central-restore
            radio: virtual
            boards:
              - {id: esp-01, profile: esp-point}
              - {id: nano-01, profile: nano33-ble-sense}
              - {id: hrm-01, profile: hrm}
            virtual: {seed: 11}
            suites:
              - restore
            """)
        #expect(result.result.failingCheckLines() == [])
        for board in result.result.boards {
            let place = "restore on \(board.id)"
            let out = try AppCentralTransitionsTests.systemOut(board: board.id, in: result.directory)
            let moves = try AppCentralTransitionsTests.centralMoves(board: board.id, in: result.directory)
            #expect(
                moves.map { "\($0.from)→\($0.to)" } == [
                    "unpairedScanning→pairing", "pairing→pairedConnected",
                    "unpairedScanning→pairedDisconnected", "pairedDisconnected→pairedConnected",
                    "pairedConnected→pairedDisconnected",
                ], "\(place): \(moves)")
            guard moves.count == 5 else { continue }
            #expect(moves[0].cause.hasPrefix("found ") && moves[1].cause.hasPrefix("paired with "), "\(place)")
            #expect(moves[2].cause.hasPrefix("restored (was connected to "), "\(place): \(moves[2])")
            #expect(moves[2].cause.contains(", 5 pending)"), "\(place): \(moves[2])")
            #expect(moves[3].cause.hasPrefix("connected to "), "\(place): \(moves[3])")
            // Closed by the second app central once it had done the five restored pieces of work.
            #expect(moves[4].cause.hasPrefix("link closed"), "\(place): \(moves[4])")
            let ready = out.split(separator: "\n").filter { $0.contains("central: session with ") }
            #expect(ready.count == 2, "\(place): \(ready)")
        }
    }

    @Test("no suite builds a connection shell or machine, or opens a session, of its own: the app central is the way")
    func suitesAskTheAppCentral() throws {
        let files = try ArchitectureTests.swiftFiles(under: "Sources/Orchestrator/Suites")
        #expect(files.contains { $0.hasSuffix("/Soak/SoakSuite.swift") })
        #expect(files.contains { $0.hasSuffix("/Restore/RestoreSuite.swift") })
        // Where a suite would go around the app central: a shell or machine of its own, the app central's shell,
        // the machine's work counted by hand, a handshake or a connection made directly.
        let around = [
            "ConnectionShell(", "connectionShell(", "ConnectionMachine(", ".shell.", ".send(.workQueued",
            ".send(.workCompleted", "Handshake.", ".connect(to:",
        ]
        for file in files where !file.hasSuffix("/BoardUnderTest+AppCentral.swift") {
            let text = try String(contentsOfFile: file, encoding: .utf8)
            let code = text.split(separator: "\n").filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("//") }
                .joined(separator: "\n")
            let name = URL(fileURLWithPath: file).lastPathComponent
            // Raw sessions: defined in Suite.swift, used only by the pairing suite's bare and wrong-key centrals.
            let allowed = name == "Suite.swift" ? ["Handshake."] : []
            let found = around.filter { !allowed.contains($0) && code.contains($0) }
            #expect(found.isEmpty, "\(name) goes around the app central: \(found)")
            let raw = name != "Suite.swift" && name != "PairingSuite.swift" && code.contains("withSession")
            #expect(!raw, "\(name) opens a raw session")
        }
    }
}
