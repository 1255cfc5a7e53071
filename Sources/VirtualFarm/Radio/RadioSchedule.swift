import BLECore

/// The airtime of one central's radio, shared by that central's links the way a controller's link-layer scheduler
/// shares it. Every ``VirtualCentral`` owns one; each of its ``VirtualLink``s asks it, at the anchor point of a
/// connection event, whether the event may run and how long it may last.
///
/// The radio does one thing at a time. The rules:
/// - **Busy.** When a link's event falls due at its anchor while the radio is still busy with another link's event,
///   the event is skipped: the peripheral hears nothing, and the link's next chance is one interval later.
/// - **Shifted.** A running event yields: it adds no exchange that would not end (with its inter frame space) before
///   the next pending anchor of another link that has data queued. It always keeps its first exchange at its own
///   anchor, which the link layer cannot move.
/// - **Fair.** Anchors collide when another link's pending anchor falls at or after an event's anchor and before the
///   end of its first exchange. Of the colliding links the one skipped most often in a row wins (at equal counts the
///   earlier anchor, then the link that joined the radio first); the others are skipped. A link's count goes back to
///   zero when an event of it runs, so colliding links take turns and none starves.
///
/// A link's share of the airtime is therefore what lies between its anchor and the next busy link's: anchors that
/// crowd together share little, one far from the others gets much. Real controllers behave alike once scheduled (the
/// nRF SoftDevice Controller's scheduling documentation: timing-events run to completion, collisions go by priority,
/// and two central links with too short an event length alternate blocking each other), and they place each new
/// link's first anchor in free time between their other links. So does this model: a link's first anchor follows
/// from the advertising event it answered, plus the transmit window offset its central chose (``firstAnchor(earliest:
/// interval:)``): a whole number of 1.25 ms units, less than one interval, that puts the new link's anchors as far as
/// it can from those of the links already up on the radio, as a controller places a new link in its free time. A
/// link connected while no other is up takes offset 0, so ``LinkModel``'s connect latency holds for it exactly.
///
/// Only events with queued data are simulated (idle links cost nothing). The empty packets an idle link exchanges at
/// each anchor to keep its connection alive are not modelled: an idle link claims no airtime and takes none, and
/// connection setup (the first anchor after CONNECT_IND) does not consult the radio. A link with peripheral latency
/// claims every anchor at which it has data, including one its peripheral sleeps through: the central transmits there.
///
/// A link alone on its radio is never busy-skipped, never collides and never yields, so its events are exactly those
/// of ``LinkModel``'s closed form.
public final class RadioSchedule: @unchecked Sendable {
    // @unchecked Sendable: confined to the simulation thread like the links that use it; they call it only from
    // their own entry points, which assert it.

    /// How a central's radio shared its airtime so far.
    public struct Statistics: Sendable, Hashable {
        /// Connection events that ran (every one carried data: idle events are not simulated).
        public var eventsRun = 0
        /// Events that did not run: the radio was busy with another link's event, or the link lost a collision.
        public var eventsSkipped = 0
        /// Events that stopped early, with data still to send, to leave the radio to another link's anchor.
        public var eventsCutShort = 0

        public init(eventsRun: Int = 0, eventsSkipped: Int = 0, eventsCutShort: Int = 0) {
            self.eventsRun = eventsRun
            self.eventsSkipped = eventsSkipped
            self.eventsCutShort = eventsCutShort
        }
    }

    public private(set) var statistics = Statistics()

    /// A link on this radio, numbered in the order it joined (the last tie-break of the fairness rule).
    typealias Member = Int

    /// The next anchor at which a link with data queued wants the radio.
    private struct Claim {
        let member: Member
        let anchor: RigInstant
        let interval: Duration
        /// Events of the link skipped in a row before this anchor.
        let skips: Int

        /// True when this claim wins a collision against `other` (rule "Fair").
        func outranks(_ other: Claim) -> Bool {
            if skips != other.skips { return skips > other.skips }
            if anchor != other.anchor { return anchor < other.anchor }
            return member < other.member
        }
    }

    /// Ordered by member, so every decision is the same in every run.
    private var claims: [Claim] = []
    /// The link whose event holds the radio, and until when (its last packet plus T_IFS).
    private var busy: (member: Member, until: RigInstant)?
    private var members = 0
    /// The links up on this radio: their first anchor and interval, by member.
    private var up: [Member: (anchor0: RigInstant, interval: Duration)] = [:]

    public init() {}

    /// Numbers a new link on this radio, whose anchors fall at `anchor0` + k × `interval`.
    func join(anchor0: RigInstant, interval: Duration) -> Member {
        members += 1
        up[members] = (anchor0, interval)
        return members
    }

    /// `member`'s link is down: it claims nothing more, and new links no longer keep clear of its anchors.
    func leave(_ member: Member) {
        withdraw(member)
        up[member] = nil
    }

    /// The unit of the transmit window offset a central chooses in CONNECT_IND (Vol 6 Part B §2.3.3.1).
    static let windowOffsetUnit: Duration = .microseconds(1_250)

    /// The first anchor of a new link whose transmit window opens at `earliest`: `earliest` plus the window offset
    /// (0, 1.25 ms, …, less than `interval`) whose anchor lies farthest from the nearest anchor of any link up on
    /// this radio; the smallest such offset, so 0 when no other link is up.
    func firstAnchor(earliest: RigInstant, interval: Duration) -> RigInstant {
        guard !up.isEmpty else { return earliest }
        var best = (anchor: earliest, clearance: Duration.zero)
        var offset = Duration.zero
        while offset < interval {
            let candidate = earliest.advanced(by: offset)
            let clearance = up.values.map { Self.distance(from: candidate, toAnchorsOf: $0) }.min() ?? .zero
            if clearance > best.clearance { best = (candidate, clearance) }
            offset += Self.windowOffsetUnit
        }
        return best.anchor
    }

    /// How far `instant` is from the nearest anchor of a link with these anchors.
    private static func distance(
        from instant: RigInstant, toAnchorsOf link: (anchor0: RigInstant, interval: Duration)
    ) -> Duration {
        let since = link.anchor0.duration(to: instant)
        var phase = since - link.interval * Int64((since / link.interval).rounded(.down))
        if phase < .zero { phase += link.interval }
        return min(phase, link.interval - phase)
    }

    /// `member` has data queued and wants the radio at `anchor`; replaces its earlier claim.
    func claim(_ member: Member, anchor: RigInstant, interval: Duration, skips: Int) {
        let claim = Claim(member: member, anchor: anchor, interval: interval, skips: skips)
        if let index = claims.firstIndex(where: { $0.member == member }) {
            claims[index] = claim
        } else {
            claims.insert(claim, at: claims.firstIndex { $0.member > member } ?? claims.endIndex)
        }
    }

    /// `member` no longer wants the radio (its event is running, or it has nothing queued, or it is down).
    func withdraw(_ member: Member) {
        claims.removeAll { $0.member == member }
    }

    /// What the radio answers a link whose event falls due.
    enum Admission: Equatable {
        /// The event does not run; the link tries again one interval later.
        case skip
        /// The event runs; when `yieldAt` is set, every exchange after the first must end (with its T_IFS) by then.
        case run(yieldAt: RigInstant?)
    }

    /// Decides whether `member`'s event at `anchor` runs. `firstExchangeEnd` is when its first exchange, with the
    /// T_IFS after it, would end. A running event must be reported with ``finish(_:at:cutShort:)``.
    func admit(_ member: Member, at anchor: RigInstant, skips: Int, firstExchangeEnd: RigInstant) -> Admission {
        if let busy, busy.member != member, busy.until > anchor {
            statistics.eventsSkipped += 1
            return .skip
        }
        let me = Claim(member: member, anchor: anchor, interval: .zero, skips: skips)
        let others = claims.filter { $0.member != member && $0.anchor >= anchor }
        let colliding = others.filter { $0.anchor < firstExchangeEnd }
        if colliding.contains(where: { $0.outranks(me) }) {
            statistics.eventsSkipped += 1
            return .skip
        }
        statistics.eventsRun += 1
        // A colliding link this event beat finds the radio busy and comes back one interval later.
        let yieldAt = others.map { $0.anchor < firstExchangeEnd ? $0.anchor.advanced(by: $0.interval) : $0.anchor }
            .min()
        return .run(yieldAt: yieldAt)
    }

    /// `member`'s event ended at `end` (its last packet plus T_IFS); `cutShort` when it yielded with data left.
    func finish(_ member: Member, at end: RigInstant, cutShort: Bool) {
        busy = (member, end)
        if cutShort { statistics.eventsCutShort += 1 }
    }
}
