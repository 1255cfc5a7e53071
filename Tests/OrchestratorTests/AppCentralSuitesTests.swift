import Foundation
import Testing

@testable import Orchestrator

/// The generic suites (`discovery`, `handshake`, `commands`, `notifications`, `power`) run through the app's
/// central: every connection they make is the machine's, and the board's `<system-out>` shows its path with causes.
/// A suite that went back to opening raw sessions fails here: a raw session moves the board's own state to
/// `connected` ("handshake done in …") and leaves no machine transition or ready attempt behind. `soak` and `restore`
/// are checked in `AppCentralSuitesTests+SoakRestore.swift`, with the suites' sources.
@Suite("generic suites through the app central")
struct AppCentralSuitesTests {
    typealias Move = AppCentralTransitionsTests.Move

    /// A suite with its options, and how many connections the app central makes for it on `board` (esp-01 has a
    /// Database Hash, so each cold handshake is followed by a warm one).
    struct Case: Sendable, CustomStringConvertible {
        var suite: String
        var options: String
        var connections: @Sendable (_ board: String) -> Int
        var description: String { suite }
    }

    static let handshakes = 3
    static let cycles = 2

    static let cases: [Case] = [
        Case(suite: "discovery", options: "discovery", connections: { _ in 1 }),
        // The app central pairs, then each cold handshake (and, on an esp-point, its warm reconnect) is a connection.
        Case(
            suite: "handshake", options: "handshake: {connections: \(handshakes)}",
            connections: { 1 + handshakes * ($0 == "esp-01" ? 2 : 1) }),
        Case(suite: "commands", options: "commands: {repetitions: 2}", connections: { _ in 1 }),
        Case(suite: "notifications", options: "notifications: {duration_s: 4}", connections: { _ in 1 }),
        // Each cycle: the link held through the cut, then the reconnection on demand.
        Case(suite: "power", options: "power: {cycles: \(cycles)}", connections: { _ in 2 * cycles }),
    ]

    static func rig(_ suite: Case) -> String {
        """
        rig: app-central-\(suite.suite)
        radio: virtual
        boards:
          - {id: esp-01, profile: esp-point}
          - {id: nano-01, profile: nano33-ble-sense}
          - {id: hrs-01, profile: {file: \(DescribedBoardFarmTests.profiles)/heart-rate-sensor.yaml}}
        virtual: {seed: 11}
        suites:
          - \(suite.options)
        """
    }

    @Test("each generic suite's system-out shows the app central's machine connecting, with causes", arguments: cases)
    func suiteRunsThroughTheAppCentral(_ suite: Case) async throws {
        let result = try await CampaignTests.run(Self.rig(suite))
        #expect(result.result.failingCheckLines() == [])
        for board in ["esp-01", "nano-01", "hrs-01"] {
            let out = try AppCentralTransitionsTests.systemOut(board: board, in: result.directory)
            let moves = try AppCentralTransitionsTests.centralMoves(board: board, in: result.directory)
            let place = "\(suite.suite) on \(board)"
            // No raw session: the board's own state never goes to connected.
            let raw = out.split(separator: "\n").filter { $0.contains(" state    ") }
                .filter { !$0.contains("central.") && $0.contains("→ connected") }
            #expect(raw.isEmpty, "\(place) opened raw sessions: \(raw)")
            #expect(moves.allSatisfy { !$0.cause.isEmpty }, "\(place): \(moves)")
            // The app pairs first: its scan found the board, the machine connected and paired.
            try #require(moves.count >= 2, "\(place): \(moves)")
            #expect(moves[0].from == "unpairedScanning" && moves[0].to == "pairing", "\(place): \(moves)")
            #expect(moves[0].cause.hasPrefix("found "), "\(place): \(moves)")
            #expect(moves[1] == Move(from: "pairing", to: "pairedConnected", cause: moves[1].cause), "\(place)")
            #expect(moves[1].cause.hasPrefix("paired with "), "\(place): \(moves)")
            // Every later connection is on demand: pairedDisconnected → pairedConnected, after the link before it
            // was closed (work done) or lost (the power suite's cuts).
            let connects = moves.indices.filter { moves[$0].to == "pairedConnected" }
            #expect(connects.count == suite.connections(board), "\(place): \(moves)")
            for index in connects.dropFirst() {
                #expect(moves[index].from == "pairedDisconnected", "\(place): \(moves[index])")
                #expect(moves[index].cause.hasPrefix("connected to "), "\(place): \(moves[index])")
                let before = moves[index - 1]
                #expect(before.from == "pairedConnected" && before.to == "pairedDisconnected", "\(place): \(before)")
                let expected = suite.suite == "power" ? ["link closed", "link lost"] : ["link closed"]
                #expect(expected.contains { before.cause.hasPrefix($0) }, "\(place): \(before)")
            }
            // The shell's record of each connection: one session made ready per connect.
            let ready = out.split(separator: "\n").filter { $0.contains("central: session with ") }
            #expect(ready.count == connects.count, "\(place): \(ready)")
            if suite.suite == "power" {
                #expect(moves.count { $0.cause.hasPrefix("link lost") } == Self.cycles, "\(place): \(moves)")
                #expect(moves.count { $0.cause.contains("after the drop") } == Self.cycles, "\(place): \(moves)")
            }
        }
    }
}
