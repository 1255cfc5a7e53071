import BLECore
import CentralStack
import DeviceProfiles
import Foundation
import Synchronization
import Testing

@testable import VirtualFarm

/// The app central's restoration and its work that lasts a link, on the virtual farm.
@Suite("App central: restored work and work while connected")
struct AppCentralTests {
    typealias Moves = ConnectionShellTests.Moves

    struct Failure: Error {}

    /// An app central for `board` on `central`, keeping every transition as `from→to: cause`.
    static func app(
        _ central: VirtualCentral, board: VirtualBoard, policy: ConnectionPolicy, store: (any ConnectionStateStore)?,
        wallClock: @escaping @Sendable () -> Date = { Date(timeIntervalSince1970: 1_800_000_000) },
        moves: Moves
    ) -> AppCentral {
        AppCentral(
            central: central, board: board.address, radio: central,
            configuration: .init(
                spec: .standard(.nano33BLESense), policy: policy, scanFilter: ScanFilter(addresses: [board.address]),
                backoff: ReconnectBackoff(random: SeededRandom(seed: 3))),
            keys: InMemoryKeyStore(), newKey: { [] }, store: store, wallClock: wallClock,
            report: { report in
                if case .notice(.transition(let t), _) = report { moves.append("\(t.from)→\(t.to): \(t.cause)") }
            })
    }

    /// A farm with one nano (powered on unless asked) and a central on it.
    static func nanoFarm(
        _ sim: Simulation, faults: LinkFaults = LinkFaults(), powered: Bool = true
    ) -> (nano: VirtualBoard, central: VirtualCentral) {
        let farm = Farm(sim: sim, link: ConnectionShellTests.link, faults: faults)
        let nano = farm.addBoard(id: "nano-1", profile: .nano33BLESense)
        if powered { nano.powerOn() }
        return (nano, farm.central())
    }

    @Test("restored pending work is taken over by the work asked for next: the link closes once that work is done")
    func restoredWorkIsTakenOver() async throws {
        let (restoration, left, moves, saved) = try await Simulation.run(seed: 21, horizon: .seconds(3600)) { sim in
            let (nano, central) = Self.nanoFarm(sim)
            let store = InMemoryConnectionStateStore()
            let now = Date(timeIntervalSince1970: 1_800_000_000)
            try? store.save(
                ConnectionSnapshot(
                    state: .pairedConnected, peripheral: nano.address, connected: nano.address, pendingWork: 2),
                at: now.addingTimeInterval(-30))
            let moves = Moves()
            let app = Self.app(central, board: nano, policy: .onDemand, store: store, moves: moves)
            let restoration = app.restoration()
            let left = Mutex<[Int]>([])
            _ = try? await app.running(restoring: restoration.snapshot) { app in
                left.withLock { $0.append(app.restoredWorkLeft) }
                // The two restored items, then one more piece of work: queued, so the machine connects again.
                for _ in 0..<3 {
                    try await app.perform("a temperature read") { session in
                        left.withLock { $0.append(app.restoredWorkLeft) }
                        _ = try await session.read(Nano33BLESense.temperature)
                    }
                }
            }
            return (restoration, left.withLock { $0 }, moves.all, try? store.load()?.snapshot)
        }
        #expect(restoration.snapshot?.pendingWork == 2, "\(restoration)")
        #expect(left == [2, 1, 0, 0])
        let address = try #require(saved?.peripheral)
        // Closed after the two restored items (not counted twice), connected again for the third piece of work.
        #expect(
            moves.map { $0.prefix { $0 != ":" } } == [
                "unpairedScanning→pairedDisconnected", "pairedDisconnected→pairedConnected",
                "pairedConnected→pairedDisconnected", "pairedDisconnected→pairedConnected",
                "pairedConnected→pairedDisconnected",
            ], "\(moves)")
        let restored = "unpairedScanning→pairedDisconnected: restored (was connected to \(address), 2 pending)"
        #expect(moves.first?.hasPrefix(restored) == true, "\(moves)")
        #expect(moves.dropFirst().allSatisfy { $0.hasSuffix("connected to \(address)") || $0.contains("link closed") })
        #expect(saved?.pendingWork == 0 && saved?.state == .pairedDisconnected, "\(String(describing: saved))")
    }

    @Test("work asked of a machine in error fails at once with the machine's reason, not at the end of its limit")
    func workFailsAtOnceWhileTheMachineIsInError() async throws {
        let (outcome, waited, moves) = try await Simulation.run(seed: 22, horizon: .seconds(3600)) { sim in
            let (nano, central) = Self.nanoFarm(sim)
            let moves = Moves()
            let app = Self.app(central, board: nano, policy: .onDemand, store: nil, moves: moves)
            let refused = ConnectionSnapshot(
                state: .error, peripheral: nano.address, errorReason: "pairing with \(nano.address) failed: refused")
            var outcome: Result<Void, any Error> = .success(())
            var waited = Duration.zero
            _ = try? await app.running(restoring: refused) { app in
                let began = app.clock.now
                // Twice: work queued as the machine goes to error, and work asked once it is there.
                for _ in 0..<2 {
                    do {
                        try await app.perform("a temperature read", within: .seconds(600)) { session in
                            _ = try await session.read(Nano33BLESense.temperature)
                        }
                        outcome = .success(())
                    } catch {
                        outcome = .failure(error)
                    }
                }
                waited = began.duration(to: app.clock.now)
            }
            return (outcome, waited, moves.all)
        }
        #expect(moves.first?.contains("→error: restored: pairing with") == true, "\(moves)")
        #expect(waited < .seconds(1), "work waited \(waited) for a machine in error")
        #expect(throws: ConnectionMachineInError.self) { try outcome.get() }
        if case .failure(let error) = outcome {
            #expect("\(error)".contains("refused") && "\(error)".contains("only a reset leaves it"), "\(error)")
        }
    }

    @Test("without a store, or with a state saved over an hour ago, nothing is restored")
    func restorationNeedsAFreshState() async throws {
        let (none, old) = try await Simulation.run(seed: 22, horizon: .seconds(60)) { sim in
            let (nano, central) = Self.nanoFarm(sim, powered: false)
            let store = InMemoryConnectionStateStore()
            try? store.save(
                ConnectionSnapshot(state: .pairedDisconnected, peripheral: nano.address, pendingWork: 1),
                at: Date(timeIntervalSince1970: 1_800_000_000 - 3601))
            let none = Self.app(central, board: nano, policy: .onDemand, store: nil, moves: Moves()).restoration()
            let old = Self.app(central, board: nano, policy: .onDemand, store: store, moves: Moves()).restoration()
            return (none, old)
        }
        #expect(none == .nothingSaved)
        #expect(old == .tooOld(age: .seconds(3601)))
    }

    @Test("work while connected ends with its link, and the next runs on the session of the link that follows")
    func workWhileConnectedEndsWithTheLink() async throws {
        let (ended, reasons, reads) = try await Simulation.run(seed: 23, horizon: .seconds(7200)) { sim in
            // A drop every 30 s of link time on average.
            let (nano, central) = Self.nanoFarm(sim, faults: LinkFaults(dropsPerHour: 120))
            let app = Self.app(central, board: nano, policy: .keepConnected, store: nil, moves: Moves())
            let sessions = Mutex<[ProfileSession]>([])
            let reads = Mutex(0)
            var ended: [Bool] = []
            var reasons: [HCIErrorCode] = []
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await app.run() }
                for _ in 0..<3 {
                    let end = try? await app.performWhileConnected("a read every second") { session in
                        sessions.withLock { $0.append(session) }
                        while true {
                            try await session.clock.sleep(for: .seconds(1))
                            _ = try await session.read(Nano33BLESense.temperature)
                            reads.withLock { $0 += 1 }
                        }
                    }
                    ended.append(end ?? false)
                }
                app.stop()
                // Each session's link is down: its reason comes at once.
                for session in sessions.withLock({ $0 }) { reasons.append(await session.connection.disconnection()) }
            }
            return (ended, reasons, reads.withLock { $0 })
        }
        #expect(ended == [true, true, true], "each piece of work ended with its link, no error")
        // Three sessions, each ended by an injected drop (a supervision timeout), not by the app.
        #expect(reasons == [.connectionTimeout, .connectionTimeout, .connectionTimeout])
        #expect(reads > 3)
    }

    @Test("work while connected returns false when its body ends first, and throws the body's own errors")
    func workWhileConnectedBodyEnds() async throws {
        let (returned, thrown) = try await Simulation.run(seed: 24, horizon: .seconds(600)) { sim in
            let (nano, central) = Self.nanoFarm(sim)
            let app = Self.app(central, board: nano, policy: .keepConnected, store: nil, moves: Moves())
            var returned: Bool?
            var thrown: (any Error)?
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await app.run() }
                returned = try? await app.performWhileConnected("one read") { session in
                    _ = try await session.read(Nano33BLESense.temperature)
                }
                do { try await app.performWhileConnected("a failing read") { _ in throw Failure() } } catch {
                    thrown = error
                }
                app.stop()
            }
            return (returned, thrown)
        }
        #expect(returned == false)
        #expect(thrown is Failure, "\(String(describing: thrown))")
    }
}
