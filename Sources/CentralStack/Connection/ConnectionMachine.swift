import BLECore

/// The central's connection logic in abstract terms, with no radio and no clock of its own (sans-I/O, like
/// swift-cluster-membership's `SWIM.Instance`): ``handle(_:at:)`` takes one ``ConnectionEvent`` and the time it
/// happened and returns the ``ConnectionAction``s for a shell to perform (``ConnectionShell`` does it over a
/// ``Central``). Every change of state comes out as a ``ConnectionNotice/transition(_:)`` with its cause, and every
/// change of the saved part as ``ConnectionAction/persist(_:)``.
///
/// The case study's lessons are rules here:
/// - a disconnect and a failed-to-connect for the same attempt count once: the first settles the attempt of that
///   peripheral, the second is ``ConnectionNotice/ignored(_:why:)``;
/// - after the radio comes back on, scanning is started again explicitly (a scan does not survive radio off);
/// - reconnection backs off with jitter, bounded by ``ReconnectBackoff/cap``;
/// - under ``ConnectionPolicy/onDemand`` the machine connects only while there is work;
/// - a restored state resumes scanning or connecting only once the radio is on.
public struct ConnectionMachine: Sendable {
    public let policy: ConnectionPolicy
    public internal(set) var state = ConnectionState.unpairedScanning
    /// The paired board.
    public internal(set) var peripheral: DeviceAddress?
    public internal(set) var radioOn = false
    public internal(set) var scanning = false
    public internal(set) var pendingWork = 0
    public internal(set) var errorReason: String?
    /// Failed attempts since the last link that came up (the back-off's exponent).
    public internal(set) var failures = 0

    /// The peripheral with an attempt in flight or a link up: the one whose terminal event is not a duplicate.
    public internal(set) var outstanding: DeviceAddress?
    /// When the outstanding peripheral's link came up; nil while it is only being connected.
    var linkUpAt: RigInstant?
    /// The link's end was asked for (or follows an update's activation): it is no drop.
    var closing = false
    /// When the last drop was noticed, for ``ConnectionNotice/reconnected(_:after:)``.
    var droppedAt: RigInstant?
    var backoff: ReconnectBackoff
    var timerGeneration = 0
    var timerArmed = false
    var lastPersisted: ConnectionSnapshot?
    /// Something other than the radio's power has happened: too late to restore a saved state.
    var started = false

    public init(policy: ConnectionPolicy, backoff: ReconnectBackoff) {
        self.policy = policy
        self.backoff = backoff
    }

    /// What would be saved now.
    public var snapshot: ConnectionSnapshot {
        ConnectionSnapshot(
            state: state, peripheral: peripheral, scanning: scanning, connected: linkUpAt == nil ? nil : outstanding,
            pendingWork: pendingWork, errorReason: errorReason)
    }

    /// True when the policy wants a link to the paired board now.
    public var wantsConnection: Bool {
        peripheral != nil && (policy == .keepConnected || pendingWork > 0)
    }

    /// Takes one event that happened at `now` and returns what to do, in order.
    public mutating func handle(_ event: ConnectionEvent, at now: RigInstant) -> [ConnectionAction] {
        var actions: [ConnectionAction] = []
        apply(event, at: now, &actions)
        switch event {
        case .radioPoweredOn, .radioPoweredOff: break
        default: started = true
        }
        let snapshot = snapshot
        if snapshot != lastPersisted {
            lastPersisted = snapshot
            actions.append(.persist(snapshot))
        }
        return actions
    }

    mutating func apply(_ event: ConnectionEvent, at now: RigInstant, _ actions: inout [ConnectionAction]) {
        switch event {
        case .radioPoweredOn: radioPoweredOn(at: now, &actions)
        case .radioPoweredOff: radioPoweredOff(at: now, &actions)
        case .discovered(let address): discovered(address, at: now, &actions)
        case .connected(let address): connected(address, event: event, at: now, &actions)
        case .disconnected(let address, let reason): linkEnded(address, reason, event: event, at: now, &actions)
        case .failedToConnect(let address, let reason): linkEnded(address, reason, event: event, at: now, &actions)
        case .pairingSucceeded(let address):
            guard state == .pairing, address == outstanding, linkUpAt != nil else {
                return actions.append(.notify(.ignored(event, why: "no pairing with \(address) in progress")))
            }
            peripheral = address
            failures = 0
            move(to: .pairedConnected, "paired with \(address)", at: now, &actions)
            closeIfIdle(at: now, &actions)
        case .pairingFailed(let address, let why):
            guard state == .pairing, address == outstanding else {
                return actions.append(.notify(.ignored(event, why: "no pairing with \(address) in progress")))
            }
            errorReason = "pairing with \(address) failed: \(why)"
            closing = true
            actions.append(.cancelConnection(address))
            move(to: .error, errorReason!, at: now, &actions)
        case .otaBegan:
            guard state == .pairedConnected else {
                return actions.append(.notify(.ignored(event, why: "no board is connected")))
            }
            move(to: .firmwareUpdating, "firmware update began", at: now, &actions)
        case .otaFinished:
            guard state == .firmwareUpdating else {
                return actions.append(.notify(.ignored(event, why: "no update in progress")))
            }
            closing = true
            move(to: .pairedConnected, "image activated; the board reboots", at: now, &actions)
        case .otaFailed(let why):
            guard state == .firmwareUpdating else {
                return actions.append(.notify(.ignored(event, why: "no update in progress")))
            }
            move(to: .pairedConnected, "firmware update failed: \(why)", at: now, &actions)
        case .workQueued(let count):
            pendingWork += max(0, count)
            if state == .pairedDisconnected { reconnectIfWanted(at: now, &actions) }
        case .workCompleted(let count):
            pendingWork = max(0, pendingWork - max(0, count))
            closeIfIdle(at: now, &actions)
        case .timerFired(let timer):
            guard timerArmed, timer.generation == timerGeneration else {
                return actions.append(.notify(.ignored(event, why: "a timer the machine no longer waits for")))
            }
            timerArmed = false
            guard state == .pairedDisconnected, radioOn, wantsConnection, outstanding == nil, let peripheral else {
                return
            }
            connect(peripheral, &actions)
        case .restore(let saved): restore(saved, event: event, at: now, &actions)
        case .reset:
            if let outstanding {
                closing = true
                actions.append(.cancelConnection(outstanding))
            }
            peripheral = nil
            errorReason = nil
            failures = 0
            timerArmed = false
            move(to: .unpairedScanning, "reset: the paired board is forgotten", at: now, &actions)
            startScanIfWanted(&actions)
        }
    }

    // MARK: Links

    mutating func discovered(_ address: DeviceAddress, at now: RigInstant, _ actions: inout [ConnectionAction]) {
        guard state == .unpairedScanning, scanning, outstanding == nil else { return }
        scanning = false
        actions.append(.stopScan)
        connect(address, &actions)
        move(to: .pairing, "found \(address)", at: now, &actions)
    }

    mutating func connect(_ address: DeviceAddress, _ actions: inout [ConnectionAction]) {
        outstanding = address
        linkUpAt = nil
        closing = false
        actions.append(.connect(address))
    }

    mutating func connected(
        _ address: DeviceAddress, event: ConnectionEvent, at now: RigInstant, _ actions: inout [ConnectionAction]
    ) {
        guard address == outstanding, linkUpAt == nil else {
            actions.append(.notify(.ignored(event, why: "no attempt to connect to \(address) is in flight")))
            if address != outstanding { actions.append(.cancelConnection(address)) }
            return
        }
        linkUpAt = now
        switch state {
        case .pairing: actions.append(.pair(address))
        case .pairedDisconnected:
            failures = 0
            let after = droppedAt.map { " \($0.duration(to: now).milliseconds.rounded() / 1000) s after the drop" }
            if let droppedAt { actions.append(.notify(.reconnected(address, after: droppedAt.duration(to: now)))) }
            droppedAt = nil
            move(to: .pairedConnected, "connected to \(address)" + (after ?? ""), at: now, &actions)
            closeIfIdle(at: now, &actions)
        default: break
        }
    }

    /// A disconnect or a failed connection: the first one for the outstanding peripheral settles its attempt.
    mutating func linkEnded(
        _ address: DeviceAddress, _ reason: HCIErrorCode, event: ConnectionEvent, at now: RigInstant,
        _ actions: inout [ConnectionAction]
    ) {
        guard address == outstanding else {
            return actions.append(
                .notify(
                    .ignored(event, why: "the attempt for \(address) was already settled (deduplicated by peripheral)"))
            )
        }
        let upFor = linkUpAt.map { $0.duration(to: now) }
        let expected = closing
        outstanding = nil
        linkUpAt = nil
        closing = false
        if let upFor {
            actions.append(
                .notify(
                    expected
                        ? .closed(address, reason: reason, connectedFor: upFor)
                        : .dropped(address, reason: reason, connectedFor: upFor)))
        }
        switch state {
        case .pairing:
            move(to: .unpairedScanning, "\(event) before pairing finished; scanning again", at: now, &actions)
            startScanIfWanted(&actions)
        case .pairedConnected, .firmwareUpdating:
            let what =
                state == .firmwareUpdating ? "link lost during the update" : expected ? "link closed" : "link lost"
            if !expected { droppedAt = now }
            move(to: .pairedDisconnected, "\(what): \(reason)", at: now, &actions)
            reconnectIfWanted(at: now, &actions)
        case .pairedDisconnected:
            // An attempt that failed (a link that came up but whose session did not get ready counts too).
            failures += 1
            reconnectIfWanted(at: now, &actions)
        case .unpairedScanning, .error: break
        }
    }

    /// Schedules the next attempt when the policy wants a link: after a back-off delay, or at once.
    mutating func reconnectIfWanted(
        at now: RigInstant, immediately: Bool = false, _ actions: inout [ConnectionAction]
    ) {
        guard state == .pairedDisconnected, radioOn, wantsConnection, outstanding == nil, let peripheral else { return }
        if immediately || (policy == .onDemand && failures == 0 && droppedAt == nil) {
            timerArmed = false
            return connect(peripheral, &actions)
        }
        guard !timerArmed else { return }
        timerGeneration += 1
        timerArmed = true
        actions.append(
            .scheduleTimer(ConnectionTimer(generation: timerGeneration), after: backoff.delay(afterFailures: failures)))
    }

    mutating func closeIfIdle(at now: RigInstant, _ actions: inout [ConnectionAction]) {
        guard policy == .onDemand, pendingWork == 0, state == .pairedConnected, let address = outstanding,
            linkUpAt != nil, !closing
        else { return }
        closing = true
        actions.append(.cancelConnection(address))
    }

    mutating func startScanIfWanted(_ actions: inout [ConnectionAction]) {
        guard state == .unpairedScanning, radioOn, !scanning else { return }
        scanning = true
        actions.append(.startScan)
    }

    mutating func move(
        to next: ConnectionState, _ cause: String, at now: RigInstant, _ actions: inout [ConnectionAction]
    ) {
        guard next != state else { return }
        let transition = ConnectionTransition(from: state, to: next, cause: cause, at: now)
        state = next
        if next != .error { errorReason = nil }
        actions.append(.notify(.transition(transition)))
    }
}
