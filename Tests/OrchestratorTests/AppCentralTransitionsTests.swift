import Foundation
import Orchestrator
import Testing

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// What a reader of junit.xml sees of the app's central: the `ota` and `sync` suites run through ``AppCentral``,
/// and its connection machine's transitions, each with its cause, are in the board's `<system-out>`.
@Suite("app central transitions in junit.xml")
struct AppCentralTransitionsTests {
    /// One `central.A → central.B: cause` line of a board's system-out.
    struct Move: Equatable, CustomStringConvertible {
        var from: String
        var to: String
        var cause: String

        var description: String { "\(from) → \(to): \(cause)" }
    }

    /// The machine's transitions in the `<system-out>` of `board`'s testsuite, in order.
    static func centralMoves(board: String, in directory: String) throws -> [Move] {
        let out = try systemOut(board: board, in: directory)
        return out.split(separator: "\n").compactMap { line -> Move? in
            // `[+12.345000s] state    central.pairedConnected → central.firmwareUpdating: firmware update began`
            guard let state = line.range(of: " state    central.") else { return nil }
            let move = line[state.upperBound...]
            guard let arrow = move.range(of: " → central."), let colon = move.range(of: ": ") else { return nil }
            return Move(
                from: String(move[..<arrow.lowerBound]), to: String(move[arrow.upperBound..<colon.lowerBound]),
                cause: String(move[colon.upperBound...]))
        }
    }

    static func systemOut(board: String, in directory: String) throws -> String {
        let document = try XMLDocument(
            contentsOf: URL(fileURLWithPath: "\(directory)/junit.xml"), options: [.nodePreserveWhitespace])
        let suites = try #require(document.rootElement()).elements(forName: "testsuite")
        let suite = try #require(
            suites.first { $0.attribute(forName: "name")?.stringValue == board }, "no testsuite \(board)")
        return try #require(suite.elements(forName: "system-out").first?.stringValue, "\(board): no system-out")
    }

    @Test(
        "the ota suite's system-out shows the machine going pairedConnected → firmwareUpdating → pairedConnected, with causes"
    )
    func otaGoesThroughFirmwareUpdating() async throws {
        let result = try await CampaignTests.run(OTASuiteTests.yaml)
        let moves = try Self.centralMoves(board: "esp-01", in: result.directory)
        #expect(moves.allSatisfy { !$0.cause.isEmpty }, "\(moves)")
        let began = moves.indices.filter { moves[$0].from == "pairedConnected" && moves[$0].to == "firmwareUpdating" }
        try #require(!began.isEmpty, "no pairedConnected → firmwareUpdating in esp-01's system-out: \(moves)")
        for index in began {
            #expect(moves[index].cause == "firmware update began")
        }
        // Every update that began ends: back to pairedConnected (activated, or failed with its reason), or the link
        // lost during the update.
        let ends = moves.filter { $0.from == "firmwareUpdating" }
        #expect(ends.count == began.count, "\(moves)")
        // pairedConnected → firmwareUpdating → pairedConnected, the second move the image's activation.
        let roundTrips = began.filter {
            $0 + 1 < moves.count
                && moves[$0 + 1]
                    == Move(
                        from: "firmwareUpdating", to: "pairedConnected", cause: "image activated; the board reboots")
        }
        #expect(!roundTrips.isEmpty, "no update came back to pairedConnected activated: \(moves)")
        // The resume check drops the link mid-transfer; the machine says so.
        #expect(ends.contains { $0.to == "pairedDisconnected" && $0.cause.contains("during the update") }, "\(moves)")
    }

    @Test("the sync suite's system-out shows the app central's machine connecting on demand and closing idle links")
    func syncShowsTheMachine() async throws {
        let result = try await CampaignTests.run(SyncSuiteTests.yaml)
        let moves = try Self.centralMoves(board: "esp-sync", in: result.directory)
        #expect(moves.allSatisfy { !$0.cause.isEmpty }, "\(moves)")
        #expect(moves.contains { $0.to == "pairedConnected" }, "\(moves)")
        #expect(moves.contains { $0.from == "pairedConnected" && $0.to == "pairedDisconnected" }, "\(moves)")
        // Connected again on demand after an idle close: the pulls come back to a board the machine let go.
        let reconnects = moves.filter {
            $0.from == "pairedDisconnected" && $0.to == "pairedConnected" && $0.cause.hasPrefix("connected to ")
        }
        #expect(!reconnects.isEmpty, "\(moves)")
    }
}
