import BLECore
import CentralStack
import DeviceProfiles
import Foundation
import Reports

/// `restore`: state restoration the case study's way, through the board's app central (``AppCentral``, on demand,
/// saving to a JSON file). A first app central pairs or authenticates with the board with work queued (the app's
/// work, still waiting or in progress) and, mid-connection, is abandoned with no clean-up — it saves nothing more,
/// as a killed process would, and its link ends the way the operating system ends a dead process's links. A second
/// app central, sharing nothing with the first but the file (its GATT cache is its own, as a new process's is),
/// reads the saved state (``AppCentral/restoration()``) and must:
/// - find it saved as connected to this board with the work pending (saved on every change);
/// - restore it (it is seconds old, younger than the hour) and reconnect straight to the known board, without
///   scanning or pairing again;
/// - take the pending work over as the app asks for it again (a read of the board's value each), and close the link
///   once it is done (connection on demand), and save that.
///
/// Reports `restore.reconnect_ms`: second instance started → session with the board ready.
struct RestoreSuite: Suite {
    static let name = "restore"
    /// Work the first instance is given, so the saved state has something pending.
    static let pendingWork = 5
    /// How long each step may take on the bench clock.
    static let stepLimit: Duration = .seconds(60)

    init(options: inout RigMappingReader) {}

    var defaultCheckTimeout: Duration { .seconds(600) }

    func checkNames(for profile: Profile) -> [String] {
        profile.data == nil ? ["killed mid-connection, restored from the file"] : []
    }

    func run(on board: BoardUnderTest) async {
        if let data = board.profile.data {
            return board.recorder.notApplicable(
                Self.name, "killed mid-connection, restored from the file",
                reason: "restoration is planned for the built-in profiles; \(data.name) is described as data")
        }
        await board.check(Self.name, "killed mid-connection, restored from the file") {
            let directory = FileManager.default.temporaryDirectory
                .appendingPathComponent("blerig-restore-\(board.id)-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let store = FileConnectionStateStore(url: directory.appendingPathComponent("central.json"))
            try await Self.killMidConnection(board, store: store)
            return try await Self.restore(board, store: store)
        }
    }

    /// The first instance: connected with work pending, then abandoned.
    private static func killMidConnection(_ board: BoardUnderTest, store: FileConnectionStateStore) async throws {
        let watch = ConnectionWatch()
        let first = board.appCentral(purpose: "restore-first", store: store, cache: InMemoryGATTCache()) {
            watch.add($0)
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await first.run() }
            // The app's work, queued at once: the first piece holds the session until the link ends with the kill,
            // the others wait their turn; none is done when the process dies.
            for item in 1...pendingWork {
                group.addTask {
                    try? await first.perform("work \(item) of \(pendingWork), cut short by the kill") { session in
                        _ = await session.connection.disconnection()
                    }
                }
            }
            defer {
                first.stop()
                group.cancelAll()
            }
            try await watch.wait(
                for: "the first central instance to connect", within: stepLimit, clock: board.clock,
                until: ConnectionWatch.reached(.pairedConnected))
            board.recorder.log(.info, "restore", "first central instance connected; killing it mid-connection")
        }
        guard let saved = try store.load() else {
            throw CheckFailure("\(board.place): the first instance saved no state to \(store.url.path)")
        }
        let expected = ConnectionSnapshot(
            state: .pairedConnected, peripheral: board.address, connected: board.address, pendingWork: pendingWork)
        guard saved.snapshot == expected else {
            throw CheckFailure(
                "\(board.place): the state saved mid-connection was \(saved.snapshot); expected \(expected)")
        }
    }

    /// The second instance: restores and reconnects, then does the restored work and closes the link.
    private static func restore(
        _ board: BoardUnderTest, store: FileConnectionStateStore
    ) async throws -> [MeasuredValue] {
        let watch = ConnectionWatch()
        let second = board.appCentral(purpose: "restore-second", store: store, cache: InMemoryGATTCache()) {
            watch.add($0)
        }
        let restoration = second.restoration()
        board.recorder.log(.info, "restore", "second central instance: \(restoration)")
        guard let snapshot = restoration.snapshot else {
            throw CheckFailure("\(board.place): the second instance did not restore: \(restoration)")
        }
        let started = board.clock.now
        var reconnect: Duration = .zero
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await second.run(restoring: snapshot) }
            defer { second.stop() }
            try await watch.wait(
                for: "the restored instance to reconnect", within: stepLimit, clock: board.clock,
                until: ConnectionWatch.reached(.pairedConnected))
            reconnect = started.duration(to: board.clock.now)
            let path = watch.transitions.map { "\($0.to)" }
            guard path == ["pairedDisconnected", "pairedConnected"] else {
                throw CheckFailure(
                    "\(board.place): the restored instance went \(path.joined(separator: " → ")); expected "
                        + "pairedDisconnected → pairedConnected, straight to the known board without scanning or pairing"
                )
            }
            guard second.snapshot.pendingWork == pendingWork, second.restoredWorkLeft == pendingWork else {
                throw CheckFailure(
                    "\(board.place): the restored instance has \(second.snapshot.pendingWork) items of work pending "
                        + "(\(second.restoredWorkLeft) to take over); \(pendingWork) were saved")
            }
            for item in 1...pendingWork {
                try await second.perform("restored work \(item) of \(pendingWork)", within: stepLimit) { session in
                    if let value = session.valueToRead { _ = try await session.read(value) }
                }
            }
            try await watch.wait(
                for: "the link to close once the restored work was done", within: stepLimit, clock: board.clock,
                until: { $0.last?.to == .pairedDisconnected })
        }
        guard let saved = try store.load(), saved.snapshot.state == .pairedDisconnected, saved.snapshot.pendingWork == 0
        else {
            throw CheckFailure(
                "\(board.place): after the work was done the saved state is \(String(describing: try? store.load()?.snapshot))"
            )
        }
        return [
            MeasuredValue(
                metric: "restore.reconnect_ms", statistic: .value, value: reconnect.milliseconds, unit: .milliseconds,
                definition: "second central instance started from the saved state → session with the board ready")
        ]
    }
}
