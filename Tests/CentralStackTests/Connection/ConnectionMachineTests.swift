import BLECore
import CentralStack
import Testing

/// Every transition of the connection machine, with every action it emits asserted (nothing else may come out).
@Suite("Connection state machine")
struct ConnectionMachineTests {
    static let board = DeviceAddress(0x240A_C412_1A2B)
    static let other = DeviceAddress(0x240A_C412_FFFF)

    /// A machine with a deterministic back-off, and a clock in whole seconds.
    struct Harness {
        var machine: ConnectionMachine
        var now = RigInstant.origin

        init(policy: ConnectionPolicy = .keepConnected, seed: UInt64 = 7) {
            machine = ConnectionMachine(
                policy: policy, backoff: ReconnectBackoff(random: SeededRandom(seed: seed, stream: "backoff")))
        }

        /// Handles `event` `after` the previous one; returns the actions without the persist and transition
        /// notices, which the tests read separately.
        mutating func send(_ event: ConnectionEvent, after: Duration = .seconds(1)) -> Output {
            now = now.advanced(by: after)
            return Output(machine.handle(event, at: now))
        }

        /// Pairs with `board` from a fresh machine with the radio on.
        mutating func paired() {
            _ = send(.radioPoweredOn)
            _ = send(.discovered(board))
            _ = send(.connected(board))
            _ = send(.pairingSucceeded(board))
        }
    }

    /// One `handle` call's actions, split into what the tests check separately.
    struct Output {
        var all: [ConnectionAction]
        init(_ actions: [ConnectionAction]) { all = actions }

        /// The actions that act on the world (scan, connect, cancel, pair, timers).
        var effects: [ConnectionAction] {
            all.filter {
                switch $0 {
                case .persist, .notify: false
                default: true
                }
            }
        }
        var transitions: [String] {
            all.compactMap {
                if case .notify(.transition(let t)) = $0 { "\(t.from)→\(t.to)" } else { nil }
            }
        }
        var notices: [ConnectionNotice] {
            all.compactMap { action -> ConnectionNotice? in
                guard case .notify(let notice) = action else { return nil }
                if case .transition = notice { return nil }
                return notice
            }
        }
        var persisted: ConnectionSnapshot? {
            all.compactMap { if case .persist(let s) = $0 { s } else { nil } }.last
        }
        var timer: (ConnectionTimer, Duration)? {
            all.compactMap { if case .scheduleTimer(let t, let d) = $0 { (t, d) } else { nil } }.first
        }
    }

    @Test("unpaired: nothing before the radio is on; then scan, find, connect, pair, paired-connected")
    func pairingPath() {
        var h = Harness()
        #expect(h.machine.state == .unpairedScanning)
        var out = h.send(.discovered(Self.board))
        #expect(out.effects.isEmpty, "a scan result with no scan running is ignored")
        out = h.send(.radioPoweredOn)
        #expect(out.effects == [.startScan])
        #expect(out.persisted?.scanning == true)
        out = h.send(.discovered(Self.board))
        #expect(out.effects == [.stopScan, .connect(Self.board)])
        #expect(out.transitions == ["unpairedScanning→pairing"])
        out = h.send(.discovered(Self.other))
        #expect(out.effects.isEmpty, "a second board found while pairing is ignored")
        out = h.send(.connected(Self.board))
        #expect(out.effects == [.pair(Self.board)])
        #expect(out.transitions.isEmpty)
        #expect(out.persisted?.connected == Self.board.description)
        out = h.send(.pairingSucceeded(Self.board))
        #expect(out.effects.isEmpty)
        #expect(out.transitions == ["pairing→pairedConnected"])
        #expect(
            out.persisted == ConnectionSnapshot(state: .pairedConnected, peripheral: Self.board, connected: Self.board))
    }

    @Test("a link lost while pairing goes back to scanning, explicitly")
    func lostWhilePairing() {
        var h = Harness()
        _ = h.send(.radioPoweredOn)
        _ = h.send(.discovered(Self.board))
        _ = h.send(.connected(Self.board))
        let out = h.send(.disconnected(Self.board, reason: .connectionTimeout))
        #expect(out.transitions == ["pairing→unpairedScanning"])
        #expect(out.effects == [.startScan])
        #expect(out.notices == [.dropped(Self.board, reason: .connectionTimeout, connectedFor: .seconds(1))])
    }

    @Test("a refused pairing is an error that closes the link; only reset leaves it, and it scans again")
    func pairingRefused() {
        var h = Harness()
        _ = h.send(.radioPoweredOn)
        _ = h.send(.discovered(Self.board))
        _ = h.send(.connected(Self.board))
        var out = h.send(.pairingFailed(Self.board, why: "not in pairing mode"))
        #expect(out.transitions == ["pairing→error"])
        #expect(out.effects == [.cancelConnection(Self.board)])
        #expect(out.persisted?.errorReason?.contains("not in pairing mode") == true)
        out = h.send(.disconnected(Self.board, reason: .localHostTerminated))
        #expect(out.notices == [.closed(Self.board, reason: .localHostTerminated, connectedFor: .seconds(2))])
        #expect(h.machine.state == .error)
        out = h.send(.radioPoweredOff)
        out = h.send(.radioPoweredOn)
        #expect(out.effects.isEmpty, "the error state waits for the user")
        out = h.send(.reset)
        #expect(out.transitions == ["error→unpairedScanning"])
        #expect(out.effects == [.startScan])
    }

    @Test("a drop goes to paired-disconnected, is counted with its reason, and reconnects after a back-off")
    func dropAndReconnect() {
        var h = Harness()
        h.paired()
        var out = h.send(.disconnected(Self.board, reason: .connectionTimeout), after: .seconds(3600))
        #expect(out.transitions == ["pairedConnected→pairedDisconnected"])
        #expect(out.notices == [.dropped(Self.board, reason: .connectionTimeout, connectedFor: .seconds(3601))])
        guard let (timer, delay) = out.timer else { Issue.record("no reconnect timer"); return }
        #expect(out.effects == [.scheduleTimer(timer, after: delay)])
        #expect(delay >= .milliseconds(250) && delay <= .milliseconds(500))
        out = h.send(.timerFired(timer), after: delay)
        #expect(out.effects == [.connect(Self.board)])
        out = h.send(.connected(Self.board), after: .milliseconds(100))
        #expect(out.transitions == ["pairedDisconnected→pairedConnected"])
        #expect(out.notices == [.reconnected(Self.board, after: delay + .milliseconds(100))])
    }

    @Test("failed reconnects back off exponentially up to the cap, and a stale timer is ignored")
    func backoffGrows() {
        var h = Harness()
        h.paired()
        var out = h.send(.disconnected(Self.board, reason: .connectionTimeout))
        var ceilings: [Duration] = []
        for failure in 0..<12 {
            guard let (timer, delay) = out.timer else { Issue.record("no timer after failure \(failure)"); return }
            let ceiling = ReconnectBackoff(random: SeededRandom(seed: 1)).ceiling(afterFailures: failure)
            ceilings.append(ceiling)
            #expect(
                delay >= ceiling / 2 && delay <= ceiling,
                "failure \(failure): \(delay) outside [\(ceiling / 2), \(ceiling)]")
            #expect(h.send(.timerFired(ConnectionTimer(generation: timer.generation - 1))).effects.isEmpty)
            #expect(h.send(.timerFired(timer), after: delay).effects == [.connect(Self.board)])
            out = h.send(.failedToConnect(Self.board, reason: .connectionFailedToBeEstablished), after: .seconds(10))
            #expect(out.transitions.isEmpty)
        }
        #expect(ceilings.prefix(4) == [.milliseconds(500), .seconds(1), .seconds(2), .seconds(4)])
        #expect(ceilings.suffix(3).allSatisfy { $0 == .seconds(60) }, "the cap bounds the delay")
        #expect(h.machine.failures == 12)
    }

    @Test("the jitter is deterministic from the seed, and another seed gives other delays")
    func jitterDeterminism() {
        func delays(seed: UInt64) -> [Duration] {
            var backoff = ReconnectBackoff(random: SeededRandom(seed: seed, stream: "backoff"))
            return (0..<20).map { backoff.delay(afterFailures: $0 % 8) }
        }
        #expect(delays(seed: 3) == delays(seed: 3))
        #expect(delays(seed: 3) != delays(seed: 4))
        // Jitter spreads: twenty draws at the same ceiling are not all equal.
        var backoff = ReconnectBackoff(random: SeededRandom(seed: 3))
        #expect(Set((0..<20).map { _ in backoff.delay(afterFailures: 2) }).count == 20)
    }

    @Test(
        "a disconnect and a failed-to-connect for the same attempt count once, in either order",
        arguments: [true, false])
    func raceDeduplicated(disconnectFirst: Bool) {
        var h = Harness()
        h.paired()
        guard let (timer, delay) = h.send(.disconnected(Self.board, reason: .connectionTimeout)).timer else {
            Issue.record("no timer"); return
        }
        _ = h.send(.timerFired(timer), after: delay)
        let events: [ConnectionEvent] = [
            .disconnected(Self.board, reason: .connectionFailedToBeEstablished),
            .failedToConnect(Self.board, reason: .connectionFailedToBeEstablished),
        ]
        let first = h.send(disconnectFirst ? events[0] : events[1])
        #expect(first.timer != nil, "the first settles the attempt and schedules the next")
        let second = h.send(disconnectFirst ? events[1] : events[0])
        #expect(second.effects.isEmpty, "the second schedules nothing")
        #expect(second.notices.count == 1)
        if case .ignored(_, let why)? = second.notices.first {
            #expect(why.contains("deduplicated"))
        } else {
            Issue.record("the duplicate was not reported as ignored: \(second.notices)")
        }
        #expect(h.machine.failures == 1)
    }

    @Test("events about another peripheral are ignored; a stray connection to it is closed")
    func strangers() {
        var h = Harness()
        h.paired()
        #expect(h.send(.disconnected(Self.other, reason: .connectionTimeout)).effects.isEmpty)
        #expect(h.machine.state == .pairedConnected)
        #expect(h.send(.connected(Self.other)).effects == [.cancelConnection(Self.other)])
    }

    @Test("radio off → on: links are settled at once, and scanning restarts explicitly")
    func radioCycleWhileScanning() {
        var h = Harness()
        _ = h.send(.radioPoweredOn)
        var out = h.send(.radioPoweredOff)
        #expect(out.effects.isEmpty)
        #expect(out.persisted?.scanning == false)
        out = h.send(.radioPoweredOn)
        #expect(out.effects == [.startScan], "nothing resumes a scan after radio off → on unless the app does")
    }

    @Test("radio off while connected closes the link without counting a drop; on again reconnects at once")
    func radioCycleWhileConnected() {
        var h = Harness()
        h.paired()
        var out = h.send(.radioPoweredOff, after: .seconds(10))
        #expect(out.transitions == ["pairedConnected→pairedDisconnected"])
        #expect(out.notices == [.closed(Self.board, reason: .localHostTerminated, connectedFor: .seconds(11))])
        #expect(out.effects.isEmpty, "no reconnect timer while the radio is off")
        out = h.send(.disconnected(Self.board, reason: .localHostTerminated))
        #expect(out.effects.isEmpty)
        #expect(out.notices.count == 1, "the late disconnect is a duplicate")
        out = h.send(.radioPoweredOn)
        #expect(out.effects == [.connect(Self.board)])
    }

    @Test("on demand: idle without work, connects when work is queued, closes when it is done; not a drop")
    func onDemand() {
        var h = Harness(policy: .onDemand)
        h.paired()
        // Paired with no work: the link is closed at once.
        var out = Output([])
        #expect(h.machine.pendingWork == 0)
        out = h.send(.disconnected(Self.board, reason: .localHostTerminated))
        #expect(out.transitions == ["pairedConnected→pairedDisconnected"])
        #expect(out.effects.isEmpty, "no work: no reconnect")
        #expect(out.notices.allSatisfy { if case .closed = $0 { true } else { false } })
        out = h.send(.workQueued(3))
        #expect(out.effects == [.connect(Self.board)])
        #expect(out.persisted?.pendingWork == 3)
        out = h.send(.connected(Self.board))
        #expect(out.effects.isEmpty)
        out = h.send(.workCompleted(2))
        #expect(out.effects.isEmpty)
        out = h.send(.workCompleted(1))
        #expect(out.effects == [.cancelConnection(Self.board)])
        out = h.send(.disconnected(Self.board, reason: .localHostTerminated))
        #expect(out.effects.isEmpty)
        #expect(out.notices == [.closed(Self.board, reason: .localHostTerminated, connectedFor: .seconds(3))])
    }

    @Test("firmware update: begins and ends in paired-connected; the reboot's disconnect is expected")
    func firmwareUpdate() {
        var h = Harness()
        h.paired()
        #expect(h.send(.otaBegan).transitions == ["pairedConnected→firmwareUpdating"])
        #expect(h.send(.otaFailed(why: "CRC mismatch")).transitions == ["firmwareUpdating→pairedConnected"])
        _ = h.send(.otaBegan)
        #expect(h.send(.otaFinished).transitions == ["firmwareUpdating→pairedConnected"])
        let out = h.send(.disconnected(Self.board, reason: .remoteUserTerminated))
        #expect(out.notices.first.map { if case .closed = $0 { true } else { false } } == true)
        #expect(h.send(.otaFinished).notices.count == 1, "no update in progress: ignored")
    }

    @Test("a drop during an update is a drop, and the machine reconnects to resume")
    func dropDuringUpdate() {
        var h = Harness()
        h.paired()
        _ = h.send(.otaBegan)
        let out = h.send(.disconnected(Self.board, reason: .connectionTimeout))
        #expect(out.transitions == ["firmwareUpdating→pairedDisconnected"])
        #expect(out.timer != nil)
        #expect(out.notices.first.map { if case .dropped = $0 { true } else { false } } == true)
    }

    @Test("restore with the radio off: nothing until the radio is on, then a connect to the saved board")
    func restoreRadioOff() {
        var h = Harness(policy: .onDemand)
        let saved = ConnectionSnapshot(
            state: .pairedConnected, peripheral: Self.board, connected: Self.board, pendingWork: 4)
        var out = h.send(.restore(saved))
        #expect(out.transitions == ["unpairedScanning→pairedDisconnected"])
        #expect(out.effects.isEmpty, "no scan or connect while the radio is off")
        #expect(h.machine.pendingWork == 4)
        out = h.send(.radioPoweredOn)
        #expect(out.effects == [.connect(Self.board)])
    }

    @Test("restore of an unpaired state scans only once the radio is on; a second restore is refused")
    func restoreUnpaired() {
        var h = Harness()
        var out = h.send(.restore(ConnectionSnapshot(state: .unpairedScanning, scanning: true)))
        #expect(out.effects.isEmpty)
        out = h.send(.radioPoweredOn)
        #expect(out.effects == [.startScan])
        out = h.send(.restore(ConnectionSnapshot(state: .pairedConnected, peripheral: Self.board)))
        #expect(out.effects.isEmpty)
        #expect(h.machine.peripheral == nil)
    }

    @Test("restore with the radio already on stops the scan and connects to the saved board")
    func restoreRadioOn() {
        var h = Harness()
        _ = h.send(.radioPoweredOn)
        let out = h.send(.restore(ConnectionSnapshot(state: .pairedDisconnected, peripheral: Self.board)))
        #expect(out.effects == [.stopScan, .connect(Self.board)])
    }

    @Test("every state is reached, and every transition carries a cause")
    func everyStateReached() {
        var h = Harness()
        var seen: Set<ConnectionState> = [h.machine.state]
        var causes: [String] = []
        func run(_ event: ConnectionEvent) {
            for case .notify(.transition(let t)) in h.machine.handle(event, at: h.now) {
                seen.insert(t.to)
                causes.append(t.cause)
            }
        }
        for event: ConnectionEvent in [
            .radioPoweredOn, .discovered(Self.board), .connected(Self.board), .pairingSucceeded(Self.board), .otaBegan,
            .disconnected(Self.board, reason: .connectionTimeout), .reset, .discovered(Self.board),
            .connected(Self.board), .pairingFailed(Self.board, why: "refused"),
        ] { run(event) }
        #expect(seen == Set(ConnectionState.allCases))
        #expect(causes.allSatisfy { !$0.isEmpty })
    }
}
