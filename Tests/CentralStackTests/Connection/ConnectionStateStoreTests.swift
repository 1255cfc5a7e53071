import BLECore
import CentralStack
import Foundation
import Testing

/// Saving and restoring the central's state in a real file: atomic replacement, the one-hour rule on an injected
/// clock, and damaged files reported and treated as no state.
@Suite("Connection state store")
struct ConnectionStateStoreTests {
    static let board = DeviceAddress(0x240A_C412_1A2B)
    static let saved = Date(timeIntervalSince1970: 1_800_000_000)

    static func store() throws -> FileConnectionStateStore {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "blerig-state-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return FileConnectionStateStore(url: directory.appendingPathComponent("central.json"))
    }

    @Test("a saved state loads back, replaced on every save, leaving no temporary file behind")
    func roundTrip() throws {
        let store = try Self.store()
        let first = ConnectionSnapshot(state: .unpairedScanning, scanning: true)
        let second = ConnectionSnapshot(
            state: .pairedConnected, peripheral: Self.board, connected: Self.board, pendingWork: 2)
        try store.save(first, at: Self.saved)
        try store.save(second, at: Self.saved.addingTimeInterval(5))
        let loaded = try store.load()
        #expect(loaded?.snapshot == second)
        #expect(loaded?.savedAt == Self.saved.addingTimeInterval(5))
        let files = try FileManager.default.contentsOfDirectory(atPath: store.url.deletingLastPathComponent().path)
        #expect(files == ["central.json"])
    }

    @Test(
        "restored only when younger than one hour, on the injected clock",
        arguments: [
            (59 * 60.0, true), (3599.0, true), (3600.0, false), (86_400.0, false), (-60.0, false),
        ])
    func age(seconds: Double, restored: Bool) throws {
        let store = try Self.store()
        try store.save(ConnectionSnapshot(state: .pairedDisconnected, peripheral: Self.board), at: Self.saved)
        let outcome = ConnectionRestoration.load(from: store, now: Self.saved.addingTimeInterval(seconds))
        #expect((outcome.snapshot != nil) == restored, "\(outcome)")
        if !restored { #expect("\(outcome)".contains("not restored")) }
    }

    @Test("no file is no state")
    func missing() throws {
        #expect(ConnectionRestoration.load(from: try Self.store(), now: Self.saved) == .nothingSaved)
    }

    @Test(
        "a damaged file is reported with its path and what is wrong, and treated as no state",
        arguments: [
            ("", "invalid JSON"), ("{\"version\": 1", "invalid JSON"), ("\u{00}\u{ff}garbage", "invalid JSON"),
            ("{\"version\": 1, \"savedAt\": \"2027-01-15T08:00:00Z\"}", "snapshot"),
            (
                "{\"version\": 9, \"savedAt\": \"2027-01-15T08:00:00Z\", \"snapshot\": {\"state\": \"error\", \"scanning\": false, \"pendingWork\": 0}}",
                "format version 9"
            ),
            (
                "{\"version\": 1, \"savedAt\": \"2027-01-15T08:00:00Z\", \"snapshot\": {\"state\": \"dancing\", \"scanning\": false, \"pendingWork\": 0}}",
                "state"
            ),
            (
                "{\"version\": 1, \"savedAt\": \"2027-01-15T08:00:00Z\", \"snapshot\": {\"state\": \"pairedConnected\", \"peripheral\": \"nope\", \"scanning\": false, \"pendingWork\": 0}}",
                "not a Bluetooth device address"
            ),
        ])
    func damaged(text: String, mentions: String) throws {
        let store = try Self.store()
        try Data(text.utf8).write(to: store.url)
        let outcome = ConnectionRestoration.load(from: store, now: Self.saved)
        guard case .unreadable(let why) = outcome else { Issue.record("loaded \(outcome)"); return }
        #expect(why.contains(store.url.path))
        #expect(why.contains(mentions), "\(why)")
    }

    @Test("a save into a directory that does not exist throws a clear error and leaves nothing behind")
    func unwritable() throws {
        let store = FileConnectionStateStore(
            url: URL(fileURLWithPath: "/nonexistent-\(UUID().uuidString)/central.json"))
        #expect {
            try store.save(ConnectionSnapshot(state: .unpairedScanning), at: Self.saved)
        } throws: { error in
            "\(error)".contains("could not create") && "\(error)".contains("nonexistent")
        }
    }
}
