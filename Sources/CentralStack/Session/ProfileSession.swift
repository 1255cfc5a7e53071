import BLECore
import DeviceProfiles
import Synchronization

/// A connected, discovered and subscribed board: the GATT layout the stack found, an inbox per subscription,
/// and the moments each handshake step finished (for `handshake.ready_ms`).
///
/// The spec's ready subscriptions are on when the session starts; its on-demand ones are turned on, once per
/// session, by the first ``ensureSubscribed(_:)`` for them, from the CCCD handles the handshake already knows.
public final class ProfileSession: Sendable {
    public let connection: any GATTConnection
    public let spec: ProfileSpec
    public let clock: any RigClock
    public let mtu: UInt16
    public let services: [GATT.Service]
    /// Every discovered characteristic of the required services, by UUID.
    public let characteristics: [BluetoothUUID: GATT.Characteristic]
    /// The inboxes of the ready subscriptions (the spec's `subscriptions`); on-demand ones are in
    /// ``subscribedInboxes`` once turned on.
    public let inboxes: [BluetoothUUID: Inbox]
    /// The CCCD handle of every subscription and on-demand subscription of the spec, from discovery or the cache.
    public let clientConfigurations: [BluetoothUUID: UInt16]
    /// On-demand subscriptions made so far (or being made) in this session.
    private let onDemand = Mutex(OnDemand())
    /// The streams of on-demand subscriptions, pumped into their inboxes by ``Handshake/withSession``.
    let onDemandStreams: AsyncStream<(Inbox, AsyncStream<GATT.ValueEvent>)>
    private let onDemandSink: AsyncStream<(Inbox, AsyncStream<GATT.ValueEvent>)>.Continuation
    /// When the handshake began (the caller's connect request) and when each step ended.
    public let timeline: HandshakeTimeline
    /// The board's Database Hash when the handshake used a GATT cache and the board has one.
    public let databaseHash: [UInt8]?
    /// The cache the handshake used: a 0x12 Database Out Of Sync on any request of the session invalidates the
    /// board's entry, as a Service Changed indication does.
    let cache: (any GATTCache)?

    init(
        connection: any GATTConnection, spec: ProfileSpec, clock: any RigClock, mtu: UInt16, services: [GATT.Service],
        characteristics: [BluetoothUUID: GATT.Characteristic], inboxes: [BluetoothUUID: Inbox],
        clientConfigurations: [BluetoothUUID: UInt16] = [:], timeline: HandshakeTimeline,
        databaseHash: [UInt8]? = nil, cache: (any GATTCache)? = nil
    ) {
        self.clientConfigurations = clientConfigurations
        (onDemandStreams, onDemandSink) = AsyncStream.makeStream()
        self.databaseHash = databaseHash
        self.cache = cache
        self.connection = connection
        self.spec = spec
        self.clock = clock
        self.mtu = mtu
        self.services = services
        self.characteristics = characteristics
        self.inboxes = inboxes
        self.timeline = timeline
    }

    /// The characteristic with `uuid`; the handshake already checked that every required one exists.
    public func characteristic(_ uuid: BluetoothUUID) throws(SessionError) -> GATT.Characteristic {
        guard let characteristic = characteristics[uuid] else {
            let service = spec.services.first { $0.characteristics.contains(uuid) }?.service ?? uuid
            throw .missingCharacteristic(uuid, service: service, profile: spec.profile)
        }
        return characteristic
    }

    /// The inbox of a subscription that is on: a ready one, or an on-demand one already turned on in this session.
    public func inbox(_ uuid: BluetoothUUID) throws(SessionError) -> Inbox {
        if let inbox = inboxes[uuid] ?? onDemand.withLock({ $0.inboxes[uuid] }) { return inbox }
        if spec.onDemand.contains(where: { $0.characteristic == uuid }) {
            throw .protocolViolation(
                "\(uuid) is subscribed on demand in the \(spec.profile) profile and not yet in this session: use ensureSubscribed(_:)"
            )
        }
        throw .protocolViolation("no subscription to \(uuid) in the \(spec.profile) profile")
    }

    /// Every inbox that is on: the ready ones and the on-demand ones turned on so far.
    public var subscribedInboxes: [BluetoothUUID: Inbox] {
        inboxes.merging(onDemand.withLock { $0.inboxes }) { ready, _ in ready }
    }

    /// The inbox of `uuid`, first subscribing to it if it is one of the spec's on-demand subscriptions not yet on
    /// in this session: one CCCD Write Request to the handle the handshake found, no discovery. Safe to call
    /// concurrently: the CCCD is written once, and every caller gets the same inbox. A failed write is not
    /// remembered, so a later call tries again.
    public func ensureSubscribed(_ uuid: BluetoothUUID) async throws(SessionError) -> Inbox {
        if let inbox = inboxes[uuid] { return inbox }
        guard let subscription = spec.onDemand.first(where: { $0.characteristic == uuid }) else {
            throw .protocolViolation("no subscription to \(uuid) in the \(spec.profile) profile")
        }
        // The first caller writes the CCCD in its own task (so it runs where the caller runs, e.g. on a simulation's
        // executor); callers meanwhile wait for its outcome.
        let first = onDemand.withLock { state -> Bool in
            guard state.entries[uuid] == nil else { return false }
            state.entries[uuid] = .subscribing([])
            return true
        }
        if !first {
            let outcome = await withCheckedContinuation { (waiter: OnDemand.Waiter) in
                let now = onDemand.withLock { state -> Result<Inbox, SessionError>?? in
                    switch state.entries[uuid] {
                    case .on(let inbox): return .some(.success(inbox))
                    case .subscribing(let waiters):
                        state.entries[uuid] = .subscribing(waiters + [waiter])
                        return .none
                    case nil: return .some(nil)
                    }
                }
                if let now { waiter.resume(returning: now) }
            }
            // nil: the first caller failed before this one queued; try again.
            guard let outcome else { return try await ensureSubscribed(uuid) }
            return try outcome.get()
        }
        let outcome: Result<Inbox, SessionError>
        do throws(SessionError) { outcome = .success(try await subscribe(subscription)) } catch {
            outcome = .failure(error)
        }
        let waiters = onDemand.withLock { state -> [OnDemand.Waiter] in
            guard case .subscribing(let waiters) = state.entries[uuid] else { return [] }
            switch outcome {
            case .success(let inbox): state.entries[uuid] = .on(inbox)
            case .failure: state.entries[uuid] = nil
            }
            return waiters
        }
        for waiter in waiters { waiter.resume(returning: outcome) }
        return try outcome.get()
    }

    private func subscribe(_ subscription: ProfileSpec.Subscription) async throws(SessionError) -> Inbox {
        let uuid = subscription.characteristic
        let characteristic = try characteristic(uuid)
        guard let cccd = clientConfigurations[uuid] else {
            throw .protocolViolation("the handshake found no CCCD for \(uuid) of the \(spec.profile) profile")
        }
        let stream: AsyncStream<GATT.ValueEvent>
        do {
            stream = try await connection.subscribe(
                to: characteristic, cccd: cccd, indications: subscription.indications)
        } catch { throw failed(error, "subscribing to \(uuid) on demand") }
        let inbox = Inbox(characteristic: uuid)
        // After the session ended nothing pumps the stream: the inbox is finished, as the link is gone.
        if case .terminated = onDemandSink.yield((inbox, stream)) { inbox.finish() }
        return inbox
    }

    /// No more on-demand streams will be pumped (the session's body ended).
    func endOnDemand() { onDemandSink.finish() }

    private struct OnDemand {
        typealias Waiter = CheckedContinuation<Result<Inbox, SessionError>?, Never>
        enum Entry {
            case subscribing([Waiter])
            case on(Inbox)
        }
        var entries: [BluetoothUUID: Entry] = [:]
        var inboxes: [BluetoothUUID: Inbox] {
            entries.compactMapValues { entry in
                if case .on(let inbox) = entry { inbox } else { nil }
            }
        }
    }

    public func read(_ uuid: BluetoothUUID) async throws(SessionError) -> [UInt8] {
        let handle = try characteristic(uuid).valueHandle
        do { return try await connection.read(handle) } catch { throw failed(error, "reading \(uuid)") }
    }

    public func write(_ value: [UInt8], to uuid: BluetoothUUID) async throws(SessionError) {
        let handle = try characteristic(uuid).valueHandle
        do { try await connection.write(value, to: handle) } catch { throw failed(error, "writing \(uuid)") }
    }

    public func writeWithoutResponse(_ value: [UInt8], to uuid: BluetoothUUID) async throws(SessionError) {
        let handle = try characteristic(uuid).valueHandle
        do { try await connection.writeWithoutResponse(value, to: handle) } catch {
            throw failed(error, "writing \(uuid) without response")
        }
    }

    /// The session error for a failed GATT call; a 0x12 Database Out Of Sync also invalidates the cached table.
    public func failed(_ error: GATTError, _ during: String) -> SessionError {
        if case .att(.databaseOutOfSync, _, _) = error {
            cache?.invalidate(CachedBoard(address: connection.peer, profile: spec.profile))
        }
        return .gatt(error, during: during)
    }

    /// Service Changed indications received during the session (each invalidated the cached table). Zero on a board
    /// with robust caching: Service Changed is not subscribed there, a change arrives as 0x12 Database Out Of Sync.
    public var serviceChangedCount: Int { inboxes[GATT.GenericAttribute.serviceChanged]?.receivedCount ?? 0 }
}

/// The moments of one handshake, on the radio's clock.
public struct HandshakeTimeline: Sendable, Hashable {
    /// The connect request.
    public var requested: RigInstant
    /// The link came up.
    public var linkUp: RigInstant
    public var mtuExchanged: RigInstant
    public var servicesDiscovered: RigInstant
    /// Every ready subscription's CCCD written (the spec's `subscriptions`, not its on-demand ones): the board is
    /// ready.
    public var ready: RigInstant
    /// Whether the layout was discovered or taken from the GATT cache.
    public var discovery: Discovery = .full

    /// How the handshake learned the board's layout.
    public enum Discovery: String, Sendable, Hashable {
        /// Services, characteristics and descriptors discovered over the air.
        case full
        /// The Database Hash matched a cached table: no discovery (`servicesDiscovered` is when it matched).
        case cached
    }

    public var connect: Duration { requested.duration(to: linkUp) }
    public var total: Duration { requested.duration(to: ready) }
}
