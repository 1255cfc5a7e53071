import Benches
import Foundation
import History
import Orchestrator
import Reports
import Synchronization
import Testing

/// Board leases in the history database, on SQLite and PostgreSQL: the table's atomic steps, waiting and
/// giving up, and a campaign that cannot lease a board.
@Suite("Board leases")
struct LeaseTests {
    static let key = BoardLeaseKey(resource: "serial:/dev/ttyUSB7", board: "esp-07")

    @Test("a held lease refuses others; only its holder renews or releases it", arguments: Backend.allCases)
    func heldLease(backend: Backend) async throws {
        try await HistoryTesting.withHistory(backend) { history in
            let taken = try await history.tryAcquire(
                resource: "r1", board: "b1", owner: "alice", token: "ta", ttl: .seconds(30))
            guard case .acquired(let lease) = taken else { Issue.record("not acquired: \(taken)"); return }
            #expect(lease.owner == "alice" && lease.expiresAt > lease.acquiredAt)
            let refused = try await history.tryAcquire(
                resource: "r1", board: "b1", owner: "bob", token: "tb", ttl: .seconds(30))
            guard case .held(let holder, _) = refused else { Issue.record("bob took it: \(refused)"); return }
            #expect(holder.owner == "alice")
            #expect(try await history.renew(resource: "r1", token: "tb", ttl: .seconds(30)) == nil)
            #expect(try await history.release(resource: "r1", token: "tb") == false)
            let renewed = try #require(try await history.renew(resource: "r1", token: "ta", ttl: .seconds(60)))
            #expect(renewed.expiresAt > lease.expiresAt && renewed.acquiredAt == lease.acquiredAt)
            #expect(try await history.release(resource: "r1", token: "ta") == true)
            let after = try await history.tryAcquire(
                resource: "r1", board: "b1", owner: "bob", token: "tb", ttl: .seconds(30))
            guard case .acquired(let bobs) = after else { Issue.record("bob could not take it: \(after)"); return }
            #expect(bobs.owner == "bob")
            #expect(try await history.leases().leases.map(\.owner) == ["bob"])
        }
    }

    @Test(
        "an expired lease is taken over, and its old holder can neither renew nor release it",
        arguments: Backend.allCases)
    func expiredTakeover(backend: Backend) async throws {
        try await HistoryTesting.withHistory(backend) { history in
            _ = try await history.tryAcquire(
                resource: "r1", board: "b1", owner: "alice", token: "ta", ttl: .milliseconds(300))
            try await Task.sleep(for: .milliseconds(450))
            let taken = try await history.tryAcquire(
                resource: "r1", board: "b1", owner: "bob", token: "tb", ttl: .seconds(30))
            guard case .acquired(let lease) = taken else { Issue.record("not taken over: \(taken)"); return }
            #expect(lease.owner == "bob")
            #expect(try await history.renew(resource: "r1", token: "ta", ttl: .seconds(30)) == nil)
            #expect(try await history.release(resource: "r1", token: "ta") == false)
            #expect(try await history.leases().leases.map(\.owner) == ["bob"])
        }
    }

    @Test("concurrent takers of one free lease: exactly one wins", arguments: Backend.allCases)
    func oneWinner(backend: Backend) async throws {
        try await HistoryTesting.withHistory(backend) { history in
            let winners = try await withThrowingTaskGroup(of: Bool.self) { group in
                for index in 0..<8 {
                    group.addTask {
                        let attempt = try await history.tryAcquire(
                            resource: "r1", board: "b1", owner: "o\(index)", token: "t\(index)", ttl: .seconds(30))
                        if case .acquired = attempt { return true }
                        return false
                    }
                }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(winners == 1)
        }
    }

    @Test(
        "waiting says who holds the board; the lease timeout gives up with a message saying what to do",
        arguments: Backend.allCases)
    func leaseTimeout(backend: Backend) async throws {
        try await HistoryTesting.withHistory(backend) { history in
            let holder = DatabaseLeasing(store: history, owner: LeaseOwner(name: "ci job 77 on rig-a:4242"))
            let held = try await holder.acquire(Self.key) { _ in }
            let waiter = DatabaseLeasing(
                store: history, owner: LeaseOwner(name: "rig-b:99"), timeout: .milliseconds(800))
            let said = Mutex<[String]>([])
            let started = ContinuousClock.now
            let error = await #expect(throws: BoardLeaseError.self) {
                _ = try await waiter.acquire(Self.key) { line in said.withLock { $0.append(line) } }
            }
            let waited = started.duration(to: .now)
            #expect(waited >= .milliseconds(800) && waited < .seconds(10))
            let message = try #require(error?.message)
            #expect(message.contains("board esp-07 (serial:/dev/ttyUSB7) is still held by ci job 77 on rig-a:4242"))
            #expect(message.contains("after waiting 0.8 s (--lease-timeout)"))
            #expect(message.contains("blerig leases"))
            #expect(said.withLock { $0 }.count == 1)
            #expect(said.withLock { $0 }.first?.contains("held by ci job 77 on rig-a:4242") == true)
            await held.release()
            let now = try await waiter.acquire(Self.key) { _ in }
            await now.release()
        }
    }

    @Test("a held lease is renewed by its heartbeat and outlives its time to live", arguments: Backend.allCases)
    func heartbeat(backend: Backend) async throws {
        try await HistoryTesting.withHistory(backend) { history in
            // A time to live the heartbeat (every third of it) keeps up with on a busy two-core CI host.
            let holder = DatabaseLeasing(store: history, owner: LeaseOwner(name: "a"), ttl: .seconds(3))
            let held = try await holder.acquire(Self.key) { _ in }
            try await Task.sleep(for: .milliseconds(4500))
            let other = try await history.tryAcquire(
                resource: Self.key.resource, board: "x", owner: "b", token: "tb", ttl: .seconds(1))
            guard case .held(let lease, let now) = other else { Issue.record("taken despite heartbeats"); return }
            #expect(lease.owner == "a" && lease.expiresAt > now)
            #expect(lease.renewedAt.timeIntervalSince(lease.acquiredAt) > 3)
            await held.release()
            #expect(try await history.leases().leases.isEmpty)
        }
    }

    @Test(
        "leases taken together stop at the first held one; renewal names the lost ones; release takes only ours",
        arguments: Backend.allCases)
    func severalAtOnce(backend: Backend) async throws {
        try await HistoryTesting.withHistory(backend) { history in
            _ = try await history.tryAcquire(resource: "r3", board: "b3", owner: "bob", token: "tb", ttl: .seconds(30))
            let requests = (1...4).map { LeaseRequest(resource: "r\($0)", board: "b\($0)") }
            let prefix = try await history.tryAcquire(requests, owner: "alice", token: "ta", ttl: .seconds(30))
            #expect(prefix.acquired.map(\.resource) == ["r1", "r2"])
            #expect(prefix.acquired.allSatisfy { $0.owner == "alice" && $0.token == "ta" })
            #expect(prefix.stoppedBy?.owner == "bob" && prefix.stoppedBy?.resource == "r3")
            let now = try #require(prefix.now)
            #expect(try #require(prefix.stoppedBy).expiresAt > now)
            // r4 was free, but it comes after the held r3: taking it would break the order runs take boards in.
            #expect(try await history.leases().leases.map(\.resource) == ["r1", "r2", "r3"])
            let lost = try await history.renew(resources: ["r1", "r2", "r3", "r9"], token: "ta", ttl: .seconds(60))
            #expect(lost == ["r3", "r9"])
            let renewed = try await history.leases().leases.filter { $0.owner == "alice" }
            #expect(renewed.allSatisfy { $0.expiresAt.timeIntervalSince($0.renewedAt) > 59 })
            try await history.release(resources: ["r1", "r2", "r3"], token: "ta")
            #expect(try await history.leases().leases.map(\.owner) == ["bob"])
            // All free: all taken.
            let all = try await history.tryAcquire(
                [LeaseRequest(resource: "r1", board: "b1"), LeaseRequest(resource: "r2", board: "b2")], owner: "alice",
                token: "ta", ttl: .seconds(30))
            #expect(all.acquired.count == 2 && all.stoppedBy == nil)
        }
    }

    @Test(
        "boards leased together share one heartbeat: all outlive their time to live, a lost one is said and dropped",
        arguments: Backend.allCases)
    func groupHeartbeat(backend: Backend) async throws {
        try await HistoryTesting.withHistory(backend) { history in
            let said = Mutex<[String]>([])
            let owner = LeaseOwner(name: "a")
            let holder = DatabaseLeasing(store: history, owner: owner, ttl: .seconds(3)) { line in
                said.withLock { $0.append(line) }
            }
            let keys = (1...3).map { BoardLeaseKey(resource: "rig:farm/b\($0)", board: "b\($0)") }
            let (count, held) = try #require(try await holder.acquireAvailable(keys))
            #expect(count == 3)
            // Another hand removes b2's lease: the next renewal finds it gone.
            #expect(try await history.release(resource: keys[1].resource, token: owner.token))
            try await Task.sleep(for: .milliseconds(4500))
            let leases = try await history.leases()
            #expect(leases.leases.map(\.resource) == [keys[0].resource, keys[2].resource])
            #expect(leases.leases.allSatisfy { $0.expiresAt > leases.now && $0.renewedAt > $0.acquiredAt })
            let lines = said.withLock { $0 }
            #expect(lines == ["board b2: the lease on rig:farm/b2 was lost (it expired and another run took it)"])
            await held.release()
            #expect(try await history.leases().leases.isEmpty)
        }
    }

    @Test(
        "a campaign takes the boards free before a held one at once, waits for that one, then takes the rest",
        arguments: Backend.allCases)
    func campaignAroundAHeldBoard(backend: Backend) async throws {
        try await HistoryTesting.withHistory(backend) { history in
            let rigPath = try HistoryTesting.rigFile(
                """
                rig: middle-farm
                radio: virtual
                boards:
                  - {id: esp-01, profile: esp-point}
                  - {id: hrm-01, profile: hrm}
                  - {id: nano-01, profile: nano33-ble-sense}
                suites: [discovery]
                """)
            let campaign = try Campaign(rigFile: rigPath, benches: BenchBuilder())
            let keys = campaign.rig.boards.map { BoardLeaseKey($0, rig: campaign.rig) }.sorted {
                $0.resource < $1.resource
            }
            try #require(keys.count >= 3)
            let middle = keys[1]
            _ = try await history.tryAcquire(
                resource: middle.resource, board: middle.board, owner: "other-host:1", token: "other",
                ttl: .seconds(60))
            let lines = Mutex<[String]>([])
            let leasing = DatabaseLeasing(store: history, owner: LeaseOwner(name: "me:1"), timeout: .seconds(60))
            // The other run gives the board back once this one says it waits for it.
            let result = try await campaign.run(
                RunOptions(outputRoot: HistoryTesting.temporaryDirectory("runs"), leasing: leasing)
            ) { line in
                lines.withLock { $0.append(line) }
                if line.contains(": waiting for ") {
                    Task { try await history.release(resource: middle.resource, token: "other") }
                }
            }
            #expect(result.result.counts.errors == 0)
            let leased = lines.withLock { $0 }.filter { $0.contains(": leased ") || $0.contains(": waiting for ") }
            // The first board at once, then the wait for the held one, then the rest.
            try #require(leased.count == keys.count + 1, "\(leased)")
            #expect(leased[0].hasPrefix("\(keys[0].board): leased \(keys[0].resource)"))
            #expect(leased[1].hasPrefix("\(middle.board): waiting for \(middle.resource): held by other-host:1"))
            #expect(leased[2].hasPrefix("\(middle.board): leased \(middle.resource)"))
            for (line, key) in zip(leased.dropFirst(3), keys.dropFirst(2)) {
                #expect(line.hasPrefix("\(key.board): leased \(key.resource)"))
            }
            #expect(try await history.leases().leases.isEmpty)
        }
    }

    @Test(
        "a board another run holds is not touched: its checks end as infrastructure errors with the lease message",
        arguments: Backend.allCases)
    func campaignWithHeldBoard(backend: Backend) async throws {
        try await HistoryTesting.withHistory(backend) { history in
            let rigPath = try HistoryTesting.rigFile(HistoryTesting.smallRig(name: "held-farm"))
            let campaign = try Campaign(rigFile: rigPath, benches: BenchBuilder())
            let key = BoardLeaseKey(campaign.rig.boards[0], rig: campaign.rig)
            #expect(key.resource == "rig:held-farm/esp-01")
            _ = try await history.tryAcquire(
                resource: key.resource, board: "esp-01", owner: "other-host:1", token: "other", ttl: .seconds(60))
            let leasing = DatabaseLeasing(
                store: history, owner: LeaseOwner(name: "me:1"), timeout: .milliseconds(500))
            let result = try await campaign.run(
                RunOptions(outputRoot: HistoryTesting.temporaryDirectory("runs"), leasing: leasing))
            let esp = try #require(result.result.boards.first { $0.id == "esp-01" })
            let lease = try #require(esp.tests.first)
            #expect(lease.suite == "preflight" && lease.name == "lease")
            #expect(lease.failureClass == .infrastructure)
            guard case .error(let message, _) = lease.outcome else { Issue.record("\(lease.outcome)"); return }
            #expect(message.contains("board esp-01 could not be leased"))
            #expect(message.contains("held by other-host:1"))
            #expect(esp.tests.dropFirst().allSatisfy { if case .skipped = $0.outcome { true } else { false } })
            #expect(esp.finalState == "unleased")
            let hrm = try #require(result.result.boards.first { $0.id == "hrm-01" })
            #expect(hrm.counts.passed > 3)
            // The run gave back the lease it held, and left the other run's alone.
            #expect(try await history.leases().leases.map(\.owner) == ["other-host:1"])
        }
    }
}
