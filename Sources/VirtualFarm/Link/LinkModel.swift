import BLECore

/// The closed-form side of the link model: what the rules of the virtual link predict for a given timeline.
/// The event-by-event simulation in ``VirtualLink`` follows the same rules; tests compare the two, which is how
/// the measurement path is known to be right.
///
/// The rules: connection events start at `anchor0 + k × interval`; a side may send in an event only what it had
/// queued when the event started (a response therefore goes out one event after its request at the earliest);
/// an event holds at most `packetsPerEvent` exchanges and ends when neither side has more to send; an ATT PDU
/// travels in an L2CAP frame (4-byte header) split into LL packets of at most `dataLength` octets.
///
/// The closed form holds for a link alone on its central. Links of one central share its radio (``RadioSchedule``):
/// an event may be skipped while the radio serves another link, or stop early for another link's anchor, so a shared
/// link's responses arrive at these predictions or later, never earlier, and its throughput stays at or below
/// ``unacknowledgedThroughput``. Together a central's links send at most as many full packets per interval as fit in
/// it; that is ``unacknowledgedThroughput`` itself when airtime, not `packetsPerEvent`, is what limits one link.
public struct LinkModel: Sendable {
    public var parameters: LinkParameters

    public init(_ parameters: LinkParameters) { self.parameters = parameters }

    /// Advertising PDUs carry the advertiser's address (6 octets) before the AD structures.
    static let advertisingHeader = 6
    /// CONNECT_IND's payload: initiator and advertiser addresses plus 22 octets of LL data.
    static let connectIndicationPayload = 34
    /// The spec's fixed delay from the end of CONNECT_IND to the transmit window (Vol 6 Part B §4.5.3).
    public static let transmitWindowDelay: Duration = .microseconds(1_250)
    /// The largest random delay added to each advertising event (advDelay, Vol 6 Part B §4.4.2.2).
    public static let maximumAdvertisingDelay: Duration = .milliseconds(10)

    /// How many LL packets an ATT PDU of `size` octets needs.
    public func packetCount(attPDU size: Int) -> Int { (size + 4 + parameters.dataLength - 1) / parameters.dataLength }

    /// From the start of the advertising event that is answered to the first anchor point: the ADV_IND
    /// (on LE 1M), T_IFS, the CONNECT_IND, the transmit window delay (the transmit window offset is 0 here).
    public func advertisingToFirstAnchor(advertisingDataLength: Int) -> Duration {
        PHY.le1M.packetAirtime(payload: Self.advertisingHeader + advertisingDataLength) + PHY.interFrameSpace
            + PHY.le1M.packetAirtime(payload: Self.connectIndicationPayload) + Self.transmitWindowDelay
    }

    /// From the first anchor point to link up: the central hears the peripheral's first (empty) packet.
    public var firstAnchorToLinkUp: Duration {
        parameters.phy.packetAirtime(payload: 0) + PHY.interFrameSpace + parameters.phy.packetAirtime(payload: 0)
    }

    /// `handshake.connect_ms` predicted for a connect request issued `advertisingWait` before the start of the
    /// advertising event it answers.
    public func connectLatency(advertisingWait: Duration, advertisingDataLength: Int) -> Duration {
        advertisingWait + advertisingToFirstAnchor(advertisingDataLength: advertisingDataLength) + firstAnchorToLinkUp
    }

    /// The first anchor point at or after `instant` on a connection whose first anchor is `anchor0`.
    public func anchor(atOrAfter instant: RigInstant, anchor0: RigInstant) -> RigInstant {
        let interval = parameters.connectionInterval
        guard instant > anchor0 else { return anchor0 }
        let elapsed = anchor0.duration(to: instant)
        var k = Int64((elapsed / interval).rounded(.down))
        if anchor0.advanced(by: interval * k) < instant { k += 1 }
        return anchor0.advanced(by: interval * k)
    }

    /// When the response to a request issued at `issued` reaches the central, on an otherwise idle link: the
    /// request leaves in the next event, the response in the event after the request arrived.
    public func responseArrival(
        requestIssued issued: RigInstant, requestSize: Int, responseSize: Int, anchor0: RigInstant
    ) -> RigInstant {
        let phy = parameters.phy
        let requestPackets = packetSizes(attPDU: requestSize)
        let responsePackets = packetSizes(attPDU: responseSize)
        precondition(
            requestPackets.count <= parameters.packetsPerEvent && responsePackets.count <= parameters.packetsPerEvent,
            "the closed form covers PDUs that fit one connection event")
        // Request event: exchanges of (request packet, empty); the last request packet lands at
        // anchor + sum of earlier exchanges + its airtime.
        let requestEvent = anchor(atOrAfter: issued, anchor0: anchor0)
        var t = requestEvent
        for (i, size) in requestPackets.enumerated() {
            if i == requestPackets.count - 1 { t = t + phy.packetAirtime(payload: size) }
            else { t = t + phy.exchangeDuration(centralPayload: size, peripheralPayload: 0) }
        }
        // Response event: exchanges of (empty, response packet).
        var r = anchor(atOrAfter: t, anchor0: anchor0)
        for (i, size) in responsePackets.enumerated() {
            r = r + phy.packetAirtime(payload: 0) + PHY.interFrameSpace + phy.packetAirtime(payload: size)
            if i < responsePackets.count - 1 { r = r + PHY.interFrameSpace }
        }
        return r
    }

    /// The LL payload sizes an ATT PDU of `size` octets is split into.
    public func packetSizes(attPDU size: Int) -> [Int] {
        var remaining = size + 4
        var sizes: [Int] = []
        while remaining > 0 {
            sizes.append(min(remaining, parameters.dataLength))
            remaining -= parameters.dataLength
        }
        return sizes
    }

    /// The ceiling for unacknowledged data (notifications, writes without response) in ATT payload bytes per
    /// second: full packets in every event, as many as the event and `packetsPerEvent` allow.
    public var unacknowledgedThroughput: Double {
        let p = parameters
        let exchange = p.phy.exchangeDuration(centralPayload: 0, peripheralPayload: p.dataLength)
        let fitting = Int((p.connectionInterval / exchange).rounded(.down))
        let packets = max(1, min(p.packetsPerEvent, fitting))
        return Double(packets * (p.dataLength - 7)) / p.connectionInterval.seconds
    }
}

extension RigInstant {
    static func + (lhs: RigInstant, rhs: Duration) -> RigInstant { lhs.advanced(by: rhs) }
}
