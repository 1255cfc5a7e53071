import BLECore

/// One LE connection between the virtual central and a board, simulated connection event by connection event
/// under the rules of ``LinkModel``. Each side hands it ATT PDUs; it carries them in L2CAP frames split into LL
/// packets, delivers each PDU when its last packet lands, and reports the end of the link with the HCI reason
/// each side would see.
///
/// Idle links cost nothing: an event is simulated only when a side has something queued. The link's events run on a
/// ``RadioSchedule``, the airtime of its central's radio, shared with the central's other links: an event may be
/// skipped or cut short for another link's (see the schedule's rules). The empty events of idle links take no
/// airtime there. A link made without a radio gets one of its own and behaves exactly as ``LinkModel`` says.
final class VirtualLink: @unchecked Sendable {
    // @unchecked Sendable: confined to the simulation thread; every entry point is a simulation timer or a task
    // running on the simulation executor (checked by `sim.assertIsolated()` on entry).

    enum Side: Int, Sendable, CustomStringConvertible {
        case central = 0, peripheral = 1
        var other: Side { self == .central ? .peripheral : .central }
        var description: String { self == .central ? "central" : "peripheral" }
    }

    /// What one side attaches to the link.
    struct Endpoint {
        /// A complete ATT PDU arrived.
        var receive: ([UInt8]) -> Void
        /// The link is down, with the reason this side's host is told.
        var down: (HCIErrorCode) -> Void
    }

    private struct Packet {
        var size: Int
        /// Set on the last packet of a PDU: the PDU to deliver when it lands.
        var completes: [UInt8]?
        var terminate: HCIErrorCode?
        var enqueued: RigInstant
    }

    enum State: Equatable {
        case up
        /// The link is gone; `down` has been (or is about to be) reported to each side still attached.
        case down
    }

    let sim: Simulation
    let model: LinkModel
    let handle: UInt16
    /// The first anchor point.
    let anchor0: RigInstant
    /// The radio whose airtime this link's events use.
    let radio: RadioSchedule
    private let member: RadioSchedule.Member
    private(set) var state = State.up

    private var endpoints: [Endpoint?] = [nil, nil]
    private var queues: [[Packet]] = [[], []]
    private var nextEvent: (id: TimerQueue.ID, anchor: RigInstant)?
    /// The anchor of the last connection event that fell due, whether it ran or not.
    private var lastAnchor: RigInstant?
    private var deliveries: [Int: (timer: TimerQueue.ID, at: RigInstant)] = [:]
    private var deliveryCount = 0
    private var spaceWaiters: [CheckedContinuation<Void, Never>] = []
    /// Events skipped in a row since the last one that ran (the radio's fairness rule reads it).
    private var consecutiveSkips = 0

    /// LL packets a side may have queued before `waitForSpace` suspends (the controller's buffers).
    let transmitBuffers: Int

    /// Called for every PDU a side queues (`sent`) and every PDU delivered (`received`), for captures.
    var observer: ((_ side: Side, _ direction: TrafficDirection, _ pdu: [UInt8], _ at: RigInstant) -> Void)?

    enum TrafficDirection { case sent, received }

    private(set) var statistics = Statistics()

    struct Statistics: Equatable {
        var events = 0
        /// Events with data queued that did not run: the radio was busy with another link, or another link won the
        /// collision.
        var skipped = 0
        var packets = [0, 0]
        var payloadOctets = [0, 0]
    }

    /// - Parameter radio: the radio of the link's central; a radio of its own when nil.
    init(
        sim: Simulation, parameters: LinkParameters, handle: UInt16, anchor0: RigInstant, transmitBuffers: Int = 16,
        radio: RadioSchedule? = nil
    ) {
        self.sim = sim
        self.model = LinkModel(parameters)
        self.handle = handle
        self.anchor0 = anchor0
        self.transmitBuffers = transmitBuffers
        self.radio = radio ?? RadioSchedule()
        member = self.radio.join(anchor0: anchor0, interval: parameters.connectionInterval)
    }

    var parameters: LinkParameters { model.parameters }

    func attach(_ side: Side, _ endpoint: Endpoint) {
        endpoints[side.rawValue] = endpoint
    }

    func isAttached(_ side: Side) -> Bool { endpoints[side.rawValue] != nil }

    /// Detaches a side without telling it anything (a board that lost power).
    func detach(_ side: Side) {
        endpoints[side.rawValue] = nil
    }

    /// Forgets both ends, the packets queued and the observer: the run is over with the link still up, and each
    /// end holds the link (``VirtualCentral`` calls this for its links still up).
    func letGo() {
        endpoints = [nil, nil]
        queues = [[], []]
        observer = nil
        deliveries = [:]
        nextEvent = nil
    }

    // MARK: Sending

    /// Queues an ATT PDU; it leaves in the first connection event that starts at or after now.
    func send(_ pdu: [UInt8], from side: Side) {
        sim.assertIsolated()
        guard state == .up else { return }
        let now = sim.now
        let sizes = model.packetSizes(attPDU: pdu.count)
        for (i, size) in sizes.enumerated() {
            queues[side.rawValue].append(
                Packet(size: size, completes: i == sizes.count - 1 ? pdu : nil, terminate: nil, enqueued: now))
        }
        observer?(side, .sent, pdu, now)
        scheduleEvent(atOrAfter: now)
    }

    /// True when `side` may queue another PDU without exceeding its transmit buffers.
    func hasSpace(_ side: Side) -> Bool { queues[side.rawValue].count < transmitBuffers }

    /// Suspends until `side` has transmit buffer space or the link is down.
    func waitForSpace(_ side: Side) async {
        while state == .up, !hasSpace(side) {
            await withCheckedContinuation { spaceWaiters.append($0) }
        }
    }

    /// Closes the link from `side` with an LL_TERMINATE_IND carrying `reason` (0x13 for a user, 0x15 for power
    /// off). Queued data is discarded; the peer is told `reason`, the initiator 0x16 once the peer acknowledged.
    func terminate(from side: Side, reason: HCIErrorCode = .remoteUserTerminated) {
        sim.assertIsolated()
        guard state == .up else { return }
        let now = sim.now
        queues[side.rawValue] = [Packet(size: 2, completes: nil, terminate: reason, enqueued: now)]
        queues[side.other.rawValue].removeAll()
        scheduleEvent(atOrAfter: now)
    }

    /// The radio path is gone from now on (interference, a board out of range or without power). Nothing more
    /// is delivered; each attached side learns of it with reason 0x08 once the supervision timeout has passed
    /// since the last connection event.
    func loseSignal() {
        sim.assertIsolated()
        guard state == .up else { return }
        state = .down
        let now = sim.now
        cancelPendingWork(after: now)
        let lastEvent = model.anchor(atOrAfter: now, anchor0: anchor0)
        let lastHeard = lastEvent == now ? now : lastEvent.advanced(by: .zero - parameters.connectionInterval)
        sim.schedule(at: lastHeard.advanced(by: parameters.supervisionTimeout)) { [self] in
            finish(.central, reason: .connectionTimeout)
            finish(.peripheral, reason: .connectionTimeout)
        }
    }

    /// The link never came up (the peripheral did not answer in the transmit window): it is gone, with no one to
    /// tell, and its radio forgets it.
    func abandon() {
        sim.assertIsolated()
        guard state == .up else { return }
        state = .down
        cancelPendingWork(after: sim.now)
    }

    // MARK: Connection events

    private func scheduleEvent(atOrAfter instant: RigInstant) {
        var anchor = model.anchor(atOrAfter: instant, anchor0: anchor0)
        // An event that has started takes nothing more: what is queued at its very instant afterwards (a writer woken
        // by the buffer space the event freed) waits for the next one.
        if anchor == lastAnchor { anchor = anchor.advanced(by: parameters.connectionInterval) }
        if let next = nextEvent, next.anchor <= anchor { return }
        if let next = nextEvent { sim.cancel(next.id) }
        let id = sim.schedule(at: anchor) { [self] in runEvent(at: anchor) }
        nextEvent = (id, anchor)
        radio.claim(member, anchor: anchor, interval: parameters.connectionInterval, skips: consecutiveSkips)
    }

    private func eligibleCount(_ side: Side, at anchor: RigInstant) -> Int {
        queues[side.rawValue].prefix { $0.enqueued <= anchor }.count
    }

    private func runEvent(at anchor: RigInstant) {
        nextEvent = nil
        lastAnchor = anchor
        radio.withdraw(member)
        guard state == .up else { return }
        let p = parameters
        let interval = p.connectionInterval
        let eventIndex = Int64((anchor0.duration(to: anchor) / interval).rounded())
        var eligible = [eligibleCount(.central, at: anchor), eligibleCount(.peripheral, at: anchor)]
        let peripheralListens = p.peripheralLatency == 0 || eligible[1] > 0
            || eventIndex % Int64(p.peripheralLatency + 1) == 0
        guard peripheralListens else {
            scheduleEvent(atOrAfter: anchor.advanced(by: interval))
            return
        }
        let firstExchange = p.phy.exchangeDuration(
            centralPayload: eligible[0] > 0 ? queues[0][0].size : 0,
            peripheralPayload: eligible[1] > 0 ? queues[1][0].size : 0)
        let admission = radio.admit(
            member, at: anchor, skips: consecutiveSkips, firstExchangeEnd: anchor.advanced(by: firstExchange))
        guard case let .run(yieldAt) = admission else {
            consecutiveSkips += 1
            statistics.skipped += 1
            scheduleEvent(atOrAfter: anchor.advanced(by: interval))
            return
        }
        consecutiveSkips = 0
        statistics.events += 1
        let ownEnd = anchor.advanced(by: interval - PHY.interFrameSpace)
        let eventEnd = yieldAt.map { min(ownEnd, $0.advanced(by: .zero - PHY.interFrameSpace)) } ?? ownEnd
        var t = anchor
        var exchanges = 0
        var ended = false
        var cutShort = false
        while exchanges < p.packetsPerEvent, !ended {
            if exchanges > 0, eligible[0] == 0, eligible[1] == 0 { break }
            let c = eligible[0] > 0 ? queues[0][0] : nil
            let q = eligible[1] > 0 ? queues[1][0] : nil
            let cAir = p.phy.packetAirtime(payload: c?.size ?? 0)
            let qAir = p.phy.packetAirtime(payload: q?.size ?? 0)
            if exchanges > 0, t + cAir + PHY.interFrameSpace + qAir > eventEnd {
                cutShort = t + cAir + PHY.interFrameSpace + qAir <= ownEnd
                break
            }
            let centralPacketLands = t + cAir
            let peripheralPacketLands = centralPacketLands + PHY.interFrameSpace + qAir
            if let c {
                queues[0].removeFirst()
                eligible[0] -= 1
                ended = land(c, from: .central, at: centralPacketLands) || ended
            }
            if let q, !ended {
                queues[1].removeFirst()
                eligible[1] -= 1
                ended = land(q, from: .peripheral, at: peripheralPacketLands) || ended
            }
            t = peripheralPacketLands + PHY.interFrameSpace
            exchanges += 1
        }
        radio.finish(member, at: t, cutShort: cutShort)
        resumeSpaceWaiters()
        if !ended, !queues[0].isEmpty || !queues[1].isEmpty {
            scheduleEvent(atOrAfter: anchor.advanced(by: interval))
        }
    }

    /// Accounts for a packet that lands at `instant`; returns true when it ends the link.
    private func land(_ packet: Packet, from side: Side, at instant: RigInstant) -> Bool {
        statistics.packets[side.rawValue] += 1
        statistics.payloadOctets[side.rawValue] += packet.size
        if let reason = packet.terminate {
            state = .down
            cancelPendingWork(after: sim.now)
            queues = [[], []]
            let acknowledged = instant + PHY.interFrameSpace + parameters.phy.packetAirtime(payload: 0)
            sim.schedule(at: instant) { [self] in finish(side.other, reason: reason) }
            sim.schedule(at: acknowledged) { [self] in finish(side, reason: .localHostTerminated) }
            return true
        }
        if let pdu = packet.completes {
            deliveryCount += 1
            let key = deliveryCount
            let timer = sim.schedule(at: instant) { [self] in
                deliveries[key] = nil
                guard state == .up else { return }
                observer?(side.other, .received, pdu, instant)
                endpoints[side.other.rawValue]?.receive(pdu)
            }
            deliveries[key] = (timer, instant)
        }
        return false
    }

    private func cancelPendingWork(after instant: RigInstant) {
        if let next = nextEvent { sim.cancel(next.id) }
        nextEvent = nil
        radio.leave(member)
        for (timer, at) in deliveries.values where at > instant { sim.cancel(timer) }
        deliveries.removeAll()
    }

    private func finish(_ side: Side, reason: HCIErrorCode) {
        guard let endpoint = endpoints[side.rawValue] else { return }
        endpoints[side.rawValue] = nil
        resumeSpaceWaiters()
        endpoint.down(reason)
    }

    private func resumeSpaceWaiters() {
        guard !spaceWaiters.isEmpty else { return }
        let waiters = spaceWaiters
        spaceWaiters.removeAll()
        for waiter in waiters { waiter.resume() }
    }
}
