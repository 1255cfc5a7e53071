import Foundation
import History
import Orchestrator
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Leases between real `blerig run` processes, on SQLite and on PostgreSQL: two runs that share boards never
/// hold one at the same time, and a holder killed with SIGKILL loses its leases when they expire.
@Suite("Board leases between blerig processes")
struct LeaseProcessTests {
    /// The history location as `--history` takes it.
    static func argument(_ location: HistoryLocation) -> String {
        switch location {
        case .sqlite(let path): path
        case .postgres(let url): url.description
        }
    }

    /// A run that keeps its boards a few seconds of wall time.
    static func sharedRig() throws -> String {
        try HistoryTesting.rigFile(
            HistoryTesting.smallRig(
                name: "shared-farm",
                suites: """
                      - discovery
                      - handshake: {connections: 40}
                      - commands: {repetitions: 10}
                    """))
    }

    static let stamp = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    struct Interval {
        var resource: String
        var from: Date
        var to: Date
    }

    /// Each board's lease interval as the process printed it: from `leased … at T` to `releasing … at T`.
    static func intervals(_ output: String) throws -> [Interval] {
        let leased = /(\S+): leased (\S+) at (\S+) after waiting/
        let releasing = /(\S+): releasing the lease on (\S+) at (\S+)$/
        var from: [String: Date] = [:]
        var intervals: [Interval] = []
        for line in output.split(separator: "\n").map(String.init) {
            if let match = line.firstMatch(of: leased) {
                from[String(match.2)] = try Self.stamp.parse(String(match.3))
            } else if let match = line.firstMatch(of: releasing) {
                let resource = String(match.2)
                let to = try Self.stamp.parse(String(match.3))
                intervals.append(Interval(resource: resource, from: try #require(from[resource]), to: to))
            }
        }
        return intervals
    }

    @Test("two blerig runs sharing boards never hold the same board at once", arguments: Backend.allCases)
    func noOverlap(backend: Backend) async throws {
        let rig = try Self.sharedRig()
        try await HistoryTesting.withLocation(backend) { location in
            let history = Self.argument(location)
            let runs = try (0..<2).map { index in
                try BlerigProcess(
                    ["run", rig, "--out", HistoryTesting.temporaryDirectory("out\(index)"), "--history", history],
                    environment: ["BLERIG_HOST_ID": "host-\(index)"])
            }
            var statuses: [Int32] = []
            for run in runs { statuses.append(await run.wait()) }
            #expect(statuses == [0, 0], "\(runs.map(\.errors))")
            let held = try runs.map { try Self.intervals($0.output) }
            #expect(held.map(\.count) == [2, 2], "\(runs.map(\.output))")
            for resource in ["rig:shared-farm/esp-01", "rig:shared-farm/hrm-01"] {
                let a = try #require(held[0].first { $0.resource == resource })
                let b = try #require(held[1].first { $0.resource == resource })
                #expect(a.from < a.to && b.from < b.to)
                #expect(a.to <= b.from || b.to <= a.from, "\(resource): \(a) overlaps \(b)")
            }
            // The runs did contend: one of them waited, and said who held the board.
            let waited = runs.first { $0.output.contains("waiting for rig:shared-farm/") }
            let waiting = try #require(waited, "neither run waited: they did not run at the same time")
            #expect(waiting.output.contains("held by host-"))
            // Both runs are in history, each once.
            let opened = try await History.open(location)
            #expect(try await opened.runs(rig: "shared-farm", last: nil).map(\.host).sorted() == ["host-0", "host-1"])
            #expect(try await opened.leases().leases.isEmpty)
            await opened.close()
        }
    }

    @Test("a SIGKILLed holder's leases expire and another run takes them over", arguments: Backend.allCases)
    func killedHolder(backend: Backend) async throws {
        let rig = try HistoryTesting.rigFile(
            // A virtual year of soak: minutes of wall time, which it never gets. A virtual day of notifications took
            // 8 s, and a full parallel test run can hold this test up for longer than that, so the holder once
            // finished, and gave its leases back, before the test looked at them.
            HistoryTesting.smallRig(name: "killed-farm", suites: "  - soak: {duration_h: 8760}"))
        try await HistoryTesting.withLocation(backend) { location in
            let holder = try BlerigProcess(
                [
                    "run", rig, "--out", HistoryTesting.temporaryDirectory("out"), "--history", Self.argument(location),
                    // Long enough that the takers below ask before it runs out, even when this test process is
                    // slow to schedule them (a full parallel test run on two cores).
                    "--lease-ttl", "6s",
                ],
                environment: ["BLERIG_HOST_ID": "doomed"])
            try await holder.waitFor(": leased rig:killed-farm/hrm-01")
            try await holder.waitFor(": leased rig:killed-farm/esp-01")
            let history = try await History.open(location)
            let before = try await history.leases().leases
            #expect(before.map(\.owner) == ["doomed:\(holder.pid)", "doomed:\(holder.pid)"])
            kill(holder.pid, SIGKILL)
            #expect(await holder.wait() == SIGKILL)
            let waited = try await withThrowingTaskGroup(of: Duration.self) { group in
                for resource in ["esp-01", "hrm-01"] {
                    group.addTask {
                        let leasing = DatabaseLeasing(
                            store: history, owner: LeaseOwner(name: "taker"), ttl: .seconds(2), timeout: .seconds(30))
                        let said = Box()
                        let start = ContinuousClock.now
                        let lease = try await leasing.acquire(
                            BoardLeaseKey(resource: "rig:killed-farm/\(resource)", board: resource)
                        ) { said.set($0) }
                        let waited = start.duration(to: .now)
                        #expect(said.get()?.contains("held by doomed:\(holder.pid)") == true)
                        await lease.release()
                        return waited
                    }
                }
                return try await group.reduce(into: [Duration]()) { $0.append($1) }
            }
            // It expires within one time to live of the last heartbeat (every 2 s), not before and not never.
            #expect(waited.allSatisfy { $0 > .milliseconds(100) && $0 < .seconds(8) }, "\(waited)")
            #expect(try await history.leases().leases.isEmpty)
            await history.close()
        }
    }
}

/// A line handed out of a `@Sendable` closure.
final class Box: Sendable {
    private let value = Mutex<String?>(nil)
    func set(_ text: String) { value.withLock { $0 = text } }
    func get() -> String? { value.withLock { $0 } }
}
