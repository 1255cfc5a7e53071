import BLECore

/// The peripheral side of an ``HCIStack``: advertising, and links a central opens to it. A board model served
/// over a controller (its GATT server, its firmware) sits on these calls.
extension HCIStack {
    /// Advertises `data` (and `scanResponse` to active scanners) every `interval`, connectable or not; nil stops.
    /// The controller stops advertising by itself when a central connects.
    public func advertise(
        _ data: AdvertisingData?, scanResponse: AdvertisingData = AdvertisingData(structures: []),
        interval: Duration = .milliseconds(100), connectable: Bool = true
    ) {
        guard let data else {
            run { host, now in host.stopAdvertising(at: now) }
            return
        }
        // Legacy PDUs carry 31 bytes; a longer set keeps what fits (the board model keeps its data short).
        let bytes = (try? data.encoded()) ?? Array(((try? data.encoded(maximumLength: 255)) ?? []).prefix(31))
        let response = (try? scanResponse.encoded()) ?? []
        run { host, now in
            host.startAdvertising(
                interval: interval, data: bytes, scanResponse: response, connectable: connectable, at: now)
        }
    }

    /// Called for every link a central opens to this controller; return the handler for its ATT traffic, or nil
    /// to refuse it (the link is closed with 0x13).
    public func acceptConnections(_ accept: @escaping @Sendable (HCIHost.Link) -> (any HCILinkHandler)?) {
        state.withLock { $0.accept = accept }
    }

    /// True while the link has room for another PDU.
    public func canSend(on handle: UInt16) -> Bool {
        state.withLock { !$0.closed && $0.host.links[handle] != nil && $0.host.canQueue(on: handle) }
    }

    /// Queues a PDU on the link without waiting (the caller checks ``canSend(on:)`` first, as a board's BLE
    /// stack checks for a free buffer).
    public func send(_ pdu: [UInt8], on handle: UInt16) {
        sendImmediately(pdu, on: handle)
    }

    /// Closes a link from this side with `reason` (the peer sees it; locally the controller reports 0x16).
    public func terminate(_ handle: UInt16, reason: HCIErrorCode = .remoteUserTerminated) {
        run { host, now in host.disconnect(handle, reason: reason, at: now) }
    }

    /// Asks the central for other connection parameters (L2CAP LE signaling, as a peripheral does).
    public func requestParameters(_ parameters: HCI.ConnectionParameters, on handle: UInt16) {
        run { host, now in host.updateParameters(parameters, on: handle, at: now) }
    }
}
