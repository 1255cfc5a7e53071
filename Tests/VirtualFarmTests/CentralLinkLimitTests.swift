import BLECore
import DeviceProfiles
import Testing

@testable import VirtualFarm

/// A ``VirtualCentral`` holds as many links as its controller can: links up and attempts in progress take a slot.
@Suite("VirtualCentral: the controller's link limit")
struct CentralLinkLimitTests {
    /// The error `connect` throws, or nil when it succeeded (the link is kept open).
    static func connectError(
        _ central: VirtualCentral, to board: VirtualBoard, timeout: Duration = .seconds(5)
    ) async -> CentralError? {
        do throws(CentralError) {
            _ = try await central.connect(to: board.address, timeout: timeout)
            return nil
        } catch { return error }
    }

    struct LimitOutcome: Sendable {
        var maxLinks = 0
        var connected = 0
        var refusal: CentralError?
        var refusalTook = Duration.zero
        var afterDisconnect = 0
        var reconnected: CentralError?
        var finalCount = 0
    }

    @Test(
        "maxLinks links connect, one more throws connectionLimit at once, and a disconnect frees a slot",
        arguments: [nil, 2] as [Int?])
    func limitHolds(maxLinks: Int?) async throws {
        let outcome = try await Simulation.run(seed: 3, horizon: .seconds(600)) { sim in
            let farm = Farm(sim: sim, link: LinkParameters())
            let central = maxLinks.map { farm.central(maxLinks: $0) } ?? farm.central()
            let boards = (0...central.maxLinks).map { farm.addBoard(id: "nano-\($0)", profile: .nano33BLESense) }
            for board in boards { board.powerOn() }
            try await sim.clock.sleep(for: .seconds(1))
            var outcome = LimitOutcome(maxLinks: central.maxLinks)
            var connections: [any GATTConnection] = []
            for board in boards.dropLast() {
                connections.append(try await central.connect(to: board.address, timeout: .seconds(5)))
            }
            outcome.connected = central.linkCount
            let asked = sim.now
            outcome.refusal = await Self.connectError(central, to: boards.last!)
            outcome.refusalTook = asked.duration(to: sim.now)
            await connections[0].disconnect()
            outcome.afterDisconnect = central.linkCount
            outcome.reconnected = await Self.connectError(central, to: boards.last!)
            outcome.finalCount = central.linkCount
            return outcome
        }
        let limit = maxLinks ?? 8
        #expect(outcome.maxLinks == limit)
        #expect(outcome.connected == limit)
        #expect(outcome.refusal == .connectionLimit(limit))
        #expect(outcome.refusalTook == .zero)
        #expect(outcome.afterDisconnect == limit - 1)
        #expect(outcome.reconnected == nil)
        #expect(outcome.finalCount == limit)
    }

    /// How a link ends in ``slotFreedWhenLinkGoesDown(_:)``.
    enum LinkEnd: String, CaseIterable, Sendable {
        case centralDisconnects, boardDisconnects, boardLosesPower, boardResets

        var reason: HCIErrorCode {
            switch self {
            case .centralDisconnects: .localHostTerminated
            case .boardDisconnects: .remoteUserTerminated
            case .boardLosesPower, .boardResets: .connectionTimeout
            }
        }
    }

    struct EndOutcome: Sendable {
        var refusedWhileUp: CentralError?
        var reason: HCIErrorCode?
        var heldFor = Duration.zero
        var countAfter = -1
        var next: CentralError?
    }

    @Test("a link that goes down frees its slot, once this central is told", arguments: LinkEnd.allCases)
    func slotFreedWhenLinkGoesDown(_ end: LinkEnd) async throws {
        let link = LinkParameters(supervisionTimeout: .seconds(2))
        let outcome = try await Simulation.run(seed: 4, horizon: .seconds(600)) { sim in
            let farm = Farm(sim: sim, link: link)
            let first = farm.addBoard(id: "nano-1", profile: .nano33BLESense)
            let second = farm.addBoard(id: "nano-2", profile: .nano33BLESense)
            first.powerOn()
            second.powerOn()
            try await sim.clock.sleep(for: .seconds(1))
            let central = farm.central(maxLinks: 1)
            let connection = try await central.connect(to: first.address, timeout: .seconds(5))
            var outcome = EndOutcome()
            let ended = sim.now
            switch end {
            case .centralDisconnects: await connection.disconnect()
            case .boardDisconnects: first.disconnectAll()
            case .boardLosesPower: first.powerOff()
            case .boardResets: first.reset(.software)
            }
            // Until the controller learns the link is gone, the slot stays taken.
            if end != .centralDisconnects { outcome.refusedWhileUp = await Self.connectError(central, to: second) }
            outcome.reason = await connection.disconnection()
            outcome.heldFor = ended.duration(to: sim.now)
            outcome.countAfter = central.linkCount
            outcome.next = await Self.connectError(central, to: second)
            return outcome
        }
        if end != .centralDisconnects { #expect(outcome.refusedWhileUp == .connectionLimit(1)) }
        #expect(outcome.reason == end.reason)
        if end.reason == .connectionTimeout {
            #expect(outcome.heldFor > .milliseconds(1_980) && outcome.heldFor <= link.supervisionTimeout)
        } else {
            #expect(outcome.heldFor < link.connectionInterval * 3)
        }
        #expect(outcome.countAfter == 0)
        #expect(outcome.next == nil)
    }

    struct AttemptOutcome: Sendable {
        var pendingAtStart = 0
        var refusedWhilePending: CentralError?
        var pendingAfterTimeout = 0
        var connectedBesidePending: CentralError?
        var refusedWhenFull: CentralError?
        var attempts: [CentralError?] = []
        var pendingAtEnd = -1
        var linksAtEnd = -1
    }

    @Test("connection attempts in progress take slots; a timed-out or cancelled attempt gives its slot back")
    func attemptsHoldSlots() async throws {
        let outcome = try await Simulation.run(seed: 5, horizon: .seconds(600)) { sim in
            let farm = Farm(sim: sim, link: LinkParameters())
            let silent = (1...2).map {
                farm.addBoard(id: "hrm-\($0)", profile: .hrm, settings: VirtualBoardSettings(advertises: false))
            }
            let live = farm.addBoard(id: "hrm-live", profile: .hrm)
            for board in silent + [live] { board.powerOn() }
            try await sim.clock.sleep(for: .seconds(1))
            let central = farm.central(maxLinks: 2)
            var outcome = AttemptOutcome()
            outcome.attempts = await withTaskGroup(of: (Int, CentralError?).self) { group in
                for (i, timeout) in [Duration.seconds(2), .seconds(60)].enumerated() {
                    group.addTask { (i, await Self.connectError(central, to: silent[i], timeout: timeout)) }
                }
                try? await sim.clock.sleep(for: .seconds(1))
                outcome.pendingAtStart = central.pendingConnections
                outcome.refusedWhilePending = await Self.connectError(central, to: live)
                try? await sim.clock.sleep(for: .seconds(2))
                outcome.pendingAfterTimeout = central.pendingConnections
                outcome.connectedBesidePending = await Self.connectError(central, to: live)
                outcome.refusedWhenFull = await Self.connectError(central, to: silent[0])
                group.cancelAll()
                var attempts: [(Int, CentralError?)] = []
                for await attempt in group { attempts.append(attempt) }
                return attempts.sorted { $0.0 < $1.0 }.map(\.1)
            }
            outcome.pendingAtEnd = central.pendingConnections
            outcome.linksAtEnd = central.linkCount
            return outcome
        }
        #expect(outcome.pendingAtStart == 2)
        #expect(outcome.refusedWhilePending == .connectionLimit(2))
        #expect(outcome.pendingAfterTimeout == 1)
        #expect(outcome.connectedBesidePending == nil)
        #expect(outcome.refusedWhenFull == .connectionLimit(2))
        let silentAddress = VirtualBoardSettings.defaultAddress(for: "hrm-1", profile: .hrm)
        #expect(outcome.attempts == [.notFound(silentAddress, waited: .seconds(2)), .cancelled])
        #expect(outcome.pendingAtEnd == 0)
        #expect(outcome.linksAtEnd == 1)
    }
}
