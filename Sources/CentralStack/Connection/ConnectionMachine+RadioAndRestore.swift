import BLECore

/// The radio's power and restoration: what resumes, and when.
extension ConnectionMachine {
    // MARK: Radio

    mutating func radioPoweredOn(at now: RigInstant, _ actions: inout [ConnectionAction]) {
        guard !radioOn else { return }
        radioOn = true
        switch state {
        case .unpairedScanning:
            // The case study's lesson: nothing resumes a scan after radio off → on unless the app starts it.
            startScanIfWanted(&actions)
        case .pairedDisconnected: reconnectIfWanted(at: now, immediately: true, &actions)
        case .pairing, .pairedConnected, .firmwareUpdating, .error: break
        }
    }

    mutating func radioPoweredOff(at now: RigInstant, _ actions: inout [ConnectionAction]) {
        guard radioOn else { return }
        radioOn = false
        scanning = false
        timerArmed = false
        // Every link and attempt is gone with the radio: settle them now; their late events are duplicates.
        if let address = outstanding {
            if let up = linkUpAt {
                actions.append(
                    .notify(.closed(address, reason: .localHostTerminated, connectedFor: up.duration(to: now))))
            }
            outstanding = nil
            linkUpAt = nil
            closing = false
        }
        switch state {
        case .pairing: move(to: .unpairedScanning, "radio off while pairing", at: now, &actions)
        case .pairedConnected, .firmwareUpdating:
            move(to: .pairedDisconnected, "radio off", at: now, &actions)
        case .unpairedScanning, .pairedDisconnected, .error: break
        }
    }

    // MARK: Restoration

    mutating func restore(
        _ saved: ConnectionSnapshot, event: ConnectionEvent, at now: RigInstant, _ actions: inout [ConnectionAction]
    ) {
        guard !started, state == .unpairedScanning, peripheral == nil, outstanding == nil else {
            return actions.append(.notify(.ignored(event, why: "a state is restored only into a fresh machine")))
        }
        pendingWork = max(0, saved.pendingWork)
        if saved.state == .error, let reason = saved.errorReason {
            errorReason = reason
            if scanning {
                scanning = false
                actions.append(.stopScan)
            }
            return move(to: .error, "restored: \(reason)", at: now, &actions)
        }
        guard let address = saved.peripheralAddress else {
            // Nothing paired (or a pairing that never finished): scan, once the radio is on.
            return startScanIfWanted(&actions)
        }
        peripheral = address
        if scanning {
            scanning = false
            actions.append(.stopScan)
        }
        let was = saved.connected != nil ? "was connected to \(address)" : "knew \(address)"
        move(
            to: .pairedDisconnected,
            "restored (\(was), \(pendingWork) pending)" + (radioOn ? "" : "; waiting for the radio"), at: now, &actions)
        reconnectIfWanted(at: now, immediately: true, &actions)
    }
}
