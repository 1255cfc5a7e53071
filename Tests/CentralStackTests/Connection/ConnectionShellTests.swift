import BLECore
import CentralStack
import DeviceProfiles
import Synchronization
import Testing

@testable import VirtualFarm

/// The connection shell running its machine over the virtual farm's central, with the radio switched off and on
/// under it, and restored from a saved state.
@Suite("Connection shell on the virtual farm")
struct ConnectionShellTests {
    static let link = LinkParameters(connectionInterval: .milliseconds(15))

    /// The transitions a shell reported, as `from→to`.
    final class Moves: Sendable {
        let list = Mutex<[String]>([])
        func append(_ move: String) { list.withLock { $0.append(move) } }
        var all: [String] { list.withLock { $0 } }
    }

    /// A shell for `board` on `central`, keeping every transition it reports.
    static func shell(
        _ central: VirtualCentral, board: VirtualBoard, profile: Profile, store: (any ConnectionStateStore)? = nil,
        policy: ConnectionPolicy = .keepConnected, transitions: Moves
    ) -> ConnectionShell {
        ConnectionShell(
            central: central, radio: central,
            configuration: .init(
                spec: .standard(profile), policy: policy, scanFilter: ScanFilter(addresses: [board.address]),
                backoff: ReconnectBackoff(random: SeededRandom(seed: 1))),
            keys: InMemoryKeyStore(), newKey: { [UInt8](repeating: 0x5A, count: 32) }, store: store,
            report: { report in
                if case .notice(.transition(let t), _) = report {
                    transitions.append("\(t.from)→\(t.to)")
                }
            })
    }

    @Test("radio off drops the link without counting a drop; radio on reconnects to the paired board")
    func radioCycleWhileConnected() async throws {
        let (states, moves) = try await Simulation.run(seed: 5, horizon: .seconds(3600)) { sim in
            let farm = Farm(sim: sim, link: Self.link)
            let nano = farm.addBoard(id: "nano-1", profile: .nano33BLESense)
            nano.powerOn()
            let central = farm.central()
            let moves = Moves()
            let shell = Self.shell(central, board: nano, profile: .nano33BLESense, transitions: moves)
            var states: [(ConnectionState, Bool)] = []
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await shell.run() }
                try? await sim.clock.sleep(for: .seconds(5))
                states.append((shell.state, nano.isConnected))
                try? await central.setPowered(false)
                try? await sim.clock.sleep(for: .seconds(30))
                states.append((shell.state, nano.isConnected))
                try? await central.setPowered(true)
                try? await sim.clock.sleep(for: .seconds(5))
                states.append((shell.state, nano.isConnected))
                shell.stop()
            }
            return (states, moves.all)
        }
        #expect(states.map(\.0) == [.pairedConnected, .pairedDisconnected, .pairedConnected])
        #expect(states.map(\.1) == [true, false, true])
        #expect(
            moves == [
                "unpairedScanning→pairing", "pairing→pairedConnected", "pairedConnected→pairedDisconnected",
                "pairedDisconnected→pairedConnected",
            ])
    }

    @Test("after radio off → on while scanning, the scan is started again and finds a board that came meanwhile")
    func rescanAfterRadioCycle() async throws {
        let (state, moves) = try await Simulation.run(seed: 6, horizon: .seconds(3600)) { sim in
            let farm = Farm(sim: sim, link: Self.link)
            let nano = farm.addBoard(id: "nano-1", profile: .nano33BLESense)
            let central = farm.central()
            let moves = Moves()
            let shell = Self.shell(central, board: nano, profile: .nano33BLESense, transitions: moves)
            var state = ConnectionState.error
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await shell.run() }
                try? await sim.clock.sleep(for: .seconds(2))
                try? await central.setPowered(false)
                nano.powerOn()
                try? await sim.clock.sleep(for: .seconds(10))
                // The board advertises, but the radio is off: nothing is found.
                state = shell.state
                try? await central.setPowered(true)
                try? await sim.clock.sleep(for: .seconds(5))
                moves.append("then \(shell.state)")
                shell.stop()
            }
            return (state, moves.all)
        }
        #expect(state == .unpairedScanning)
        #expect(moves == ["unpairedScanning→pairing", "pairing→pairedConnected", "then pairedConnected"])
    }

    @Test("links dropped mid-handshake report failed-to-connect and then disconnected; the machine counts each once")
    func raceForReal() async throws {
        let (notices, state) = try await Simulation.run(seed: 12, horizon: .seconds(7200)) { sim in
            // A drop every two seconds of link time on average: many handshakes (a few hundred ms) are cut short.
            let farm = Farm(sim: sim, link: Self.link, faults: LinkFaults(dropsPerHour: 1800))
            let nano = farm.addBoard(id: "nano-1", profile: .nano33BLESense)
            nano.powerOn()
            let central = farm.central()
            let notices = Mutex<[ConnectionNotice]>([])
            let shell = ConnectionShell(
                central: central, radio: central,
                configuration: .init(
                    spec: .standard(.nano33BLESense), policy: .keepConnected,
                    scanFilter: ScanFilter(addresses: [nano.address]),
                    backoff: ReconnectBackoff(random: SeededRandom(seed: 2))),
                keys: InMemoryKeyStore(), newKey: { [] }, store: nil,
                report: { report in
                    if case .notice(let notice, _) = report { notices.withLock { $0.append(notice) } }
                })
            var state = ConnectionState.error
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await shell.run() }
                try? await sim.clock.sleep(for: .seconds(600))
                state = shell.state
                shell.stop()
            }
            return (notices.withLock { $0 }, state)
        }
        let duplicates = notices.filter {
            if case .ignored(.disconnected, let why) = $0 { why.contains("deduplicated") } else { false }
        }
        let drops = notices.filter { if case .dropped = $0 { true } else { false } }
        let reconnects = notices.filter { if case .reconnected = $0 { true } else { false } }
        #expect(duplicates.count > 5, "handshakes cut short: \(duplicates.count)")
        #expect(drops.count > 50)
        // Every drop but possibly the last was followed by exactly one reconnect: no attempt counted twice.
        #expect(reconnects.count == drops.count || reconnects.count == drops.count - 1)
        #expect(state == .pairedConnected || state == .pairedDisconnected)
    }

    @Test("every attempt is reported once: ready ones with the handshake's timeline, cut ones with their failure")
    func attemptsAreReported() async throws {
        let (attempts, connects) = try await Simulation.run(seed: 12, horizon: .seconds(7200)) { sim in
            // As in raceForReal: drops often enough that many handshakes are cut short.
            let farm = Farm(sim: sim, link: Self.link, faults: LinkFaults(dropsPerHour: 1800))
            let nano = farm.addBoard(id: "nano-1", profile: .nano33BLESense)
            nano.powerOn()
            let central = farm.central()
            let attempts = Mutex<[LinkAttempt]>([])
            let connects = Mutex(0)
            let shell = ConnectionShell(
                central: central, radio: central,
                configuration: .init(
                    spec: .standard(.nano33BLESense), policy: .keepConnected,
                    scanFilter: ScanFilter(addresses: [nano.address]),
                    backoff: ReconnectBackoff(random: SeededRandom(seed: 2))),
                keys: InMemoryKeyStore(), newKey: { [] }, store: nil,
                report: { report in
                    switch report {
                    case .attempt(let attempt, _): attempts.withLock { $0.append(attempt) }
                    case .notice(.transition(let t), _) where t.to == .pairedConnected: connects.withLock { $0 += 1 }
                    default: break
                    }
                })
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await shell.run() }
                try? await sim.clock.sleep(for: .seconds(600))
                shell.stop()
            }
            return (attempts.withLock { $0 }, connects.withLock { $0 })
        }
        let ready = attempts.filter(\.succeeded)
        let failed = attempts.filter { !$0.succeeded }
        #expect(failed.count > 5, "cut short: \(failed.count)")
        // Each link the machine took as connected was one ready attempt (the last may still be in its handshake).
        #expect(ready.count == connects)
        for attempt in ready {
            let timeline = try #require(attempt.timeline)
            #expect(timeline.requested == attempt.requested && timeline.linkUp == attempt.linkUp)
            #expect(timeline.connect > .zero && timeline.total >= timeline.connect && attempt.mtu != nil)
        }
        for attempt in failed {
            #expect(attempt.timeline == nil && attempt.reason != nil && !(attempt.failure ?? "").isEmpty)
        }
    }

    @Test("a state restored while the radio is off connects to nothing until the radio is on")
    func restoreWithRadioOff() async throws {
        let (before, after, moves) = try await Simulation.run(seed: 8, horizon: .seconds(3600)) { sim in
            let farm = Farm(sim: sim, link: Self.link)
            let hrm = farm.addBoard(id: "hrm-1", profile: .hrm)
            hrm.powerOn()
            let central = farm.central()
            try? await central.setPowered(false)
            let store = InMemoryConnectionStateStore()
            let moves = Moves()
            let shell = Self.shell(central, board: hrm, profile: .hrm, store: store, transitions: moves)
            let saved = ConnectionSnapshot(state: .pairedConnected, peripheral: hrm.address, connected: hrm.address)
            var before: (ConnectionState, Bool, Int) = (.error, true, 0)
            var after: (ConnectionState, Bool) = (.error, false)
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await shell.run(restoring: saved) }
                try? await sim.clock.sleep(for: .seconds(60))
                before = (shell.state, hrm.isConnected, central.pendingConnections)
                try? await central.setPowered(true)
                try? await sim.clock.sleep(for: .seconds(5))
                after = (shell.state, hrm.isConnected)
                shell.stop()
            }
            return (before, after, moves.all)
        }
        #expect(before.0 == .pairedDisconnected && !before.1 && before.2 == 0)
        #expect(after.0 == .pairedConnected && after.1)
        #expect(moves == ["unpairedScanning→pairedDisconnected", "pairedDisconnected→pairedConnected"])
    }
}
