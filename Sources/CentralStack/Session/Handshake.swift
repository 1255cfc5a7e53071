import BLECore
import DeviceProfiles

/// Brings a board from "connected" to "ready" — MTU exchanged, services discovered, notifications enabled —
/// and keeps its subscriptions flowing into inboxes while the caller works with it.
///
/// With a ``GATTCache`` the handshake also caches the board's table (Core 5.4 Vol 3 Part G §2.5.2): a board with
/// a table in the cache has its Database Hash read first (Read By Type 0x2B2A, no discovery needed) and, when
/// the hash matches, is made ready from the cached handles without discovery (`Handshake+Cache.swift`: the ready
/// subscriptions' CCCDs are written again with Write Requests, or batched as Write Commands if asked); any other
/// board is discovered (`Handshake+Discovery.swift`), and one with a Generic Attribute service and Database Hash
/// is cached. Either way robust caching is enabled (Client Supported Features), so a table change during the
/// session makes the board answer the next request with 0x12 Database Out Of Sync (Vol 3 Part G §2.5.2.1), which
/// invalidates the cache, and the next handshake discovers again. Service Changed is not subscribed on such a
/// board: with robust caching it adds a CCCD write to every connection and tells the client nothing the 0x12
/// does not. A board without Database Hash is never cached, so it has nothing to invalidate.
///
/// Only the spec's ready `subscriptions` are written by the handshake; its `onDemand` ones are written by the
/// feature that first needs them (``ProfileSession/ensureSubscribed(_:)``), and pumped into their inboxes here
/// like the others until the link goes down or `body` returns.
public enum Handshake {
    /// Connects to `address`, performs the handshake and runs `body` with the session. The link is closed when
    /// `body` returns or throws, unless it is already down.
    public static func withSession<T: Sendable>(
        central: any Central, address: DeviceAddress, spec: ProfileSpec, connectTimeout: Duration,
        cache: (any GATTCache)? = nil, warmSubscriptions: WarmSubscriptions = .writeRequests,
        _ body: (ProfileSession) async throws -> T
    ) async throws -> T {
        let clock = central.clock
        let requested = clock.now
        let connection: any GATTConnection
        do { connection = try await central.connect(to: address, timeout: connectTimeout) } catch {
            throw error
        }
        let linkUp = clock.now
        do {
            let result = try await withSession(
                connection: connection, requested: requested, linkUp: linkUp, spec: spec, clock: clock,
                cache: cache, warmSubscriptions: warmSubscriptions, body)
            await connection.disconnect()
            return result
        } catch {
            await connection.disconnect()
            throw error
        }
    }

    /// Performs the handshake on an open connection and runs `body` with the session; the caller owns the link.
    public static func withSession<T: Sendable>(
        connection: any GATTConnection, requested: RigInstant, linkUp: RigInstant, spec: ProfileSpec,
        clock: any RigClock, cache: (any GATTCache)? = nil, warmSubscriptions: WarmSubscriptions = .writeRequests,
        _ body: (ProfileSession) async throws -> T
    ) async throws -> T {
        let (session, streams) = try await prepare(
            connection: connection, requested: requested, linkUp: linkUp, spec: spec, clock: clock, cache: cache,
            warmSubscriptions: warmSubscriptions)
        let board = CachedBoard(address: connection.peer, profile: spec.profile)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            for (inbox, stream) in streams {
                let changes = inbox.characteristic == GATT.GenericAttribute.serviceChanged
                group.addTask {
                    for await event in stream {
                        // The board's table changed under this session: the cached one is wrong from now on.
                        if changes { cache?.invalidate(board) }
                        inbox.put(event)
                    }
                    inbox.finish()
                }
            }
            // On-demand subscriptions made while `body` runs are pumped the same way.
            group.addTask {
                await withTaskGroup(of: Void.self) { pumps in
                    for await (inbox, stream) in session.onDemandStreams {
                        pumps.addTask {
                            for await event in stream { inbox.put(event) }
                            inbox.finish()
                        }
                    }
                }
            }
            defer {
                session.endOnDemand()
                group.cancelAll()
            }
            return try await body(session)
        }
    }

    /// One handshake step's GATT call, its error saying which step failed.
    static func step<R>(
        _ what: String, _ operation: () async throws(GATTError) -> R
    ) async throws(SessionError) -> R {
        do { return try await operation() } catch { throw .gatt(error, during: what) }
    }

    private static func prepare(
        connection: any GATTConnection, requested: RigInstant, linkUp: RigInstant, spec: ProfileSpec,
        clock: any RigClock, cache: (any GATTCache)?, warmSubscriptions: WarmSubscriptions
    ) async throws(SessionError) -> (ProfileSession, [(Inbox, AsyncStream<GATT.ValueEvent>)]) {
        let mtu = try await step("exchanging MTU") { () async throws(GATTError) in
            try await connection.exchangeMTU(preferred: spec.preferredMTU)
        }
        let mtuExchanged = clock.now
        let board = CachedBoard(address: connection.peer, profile: spec.profile)
        var prepared: Prepared?
        var knownHash: [UInt8]?
        if let cache, cache.hasTable(for: board) {
            let found = try await step("reading the Database Hash") { () async throws(GATTError) in
                try await connection.readByType(GATT.GenericAttribute.databaseHash, in: 0x0001...0xFFFF)
            }
            knownHash = found.first?.value
            if let hash = knownHash, let table = cache.table(for: board, hash: hash) {
                do {
                    prepared = try await readyFromCache(
                        table, connection: connection, spec: spec, clock: clock, subscriptions: warmSubscriptions)
                } catch {
                    // The table changed between the hash read and now: forget it and discover.
                    guard error.isDatabaseOutOfSync else { throw error }
                    cache.invalidate(board)
                }
            }
        }
        if prepared == nil {
            prepared = try await discover(connection: connection, spec: spec, clock: clock, cache: cache, board: board)
        }
        let result = prepared!
        let timeline = HandshakeTimeline(
            requested: requested, linkUp: linkUp, mtuExchanged: mtuExchanged,
            servicesDiscovered: result.servicesDiscovered, ready: clock.now, discovery: result.discovery)
        let session = ProfileSession(
            connection: connection, spec: spec, clock: clock, mtu: mtu, services: result.services,
            characteristics: result.characteristics, inboxes: result.inboxes,
            clientConfigurations: result.clientConfigurations, timeline: timeline,
            databaseHash: result.databaseHash, cache: cache)
        return (session, result.streams)
    }

    /// What either path produced.
    struct Prepared {
        var services: [GATT.Service]
        var characteristics: [BluetoothUUID: GATT.Characteristic]
        var inboxes: [BluetoothUUID: Inbox]
        /// The CCCD of every ready and on-demand subscription.
        var clientConfigurations: [BluetoothUUID: UInt16]
        var streams: [(Inbox, AsyncStream<GATT.ValueEvent>)]
        var servicesDiscovered: RigInstant
        var discovery: HandshakeTimeline.Discovery
        var databaseHash: [UInt8]?
    }
}

extension SessionError {
    /// A request was refused with 0x12 Database Out Of Sync: the board's table changed under the client.
    public var isDatabaseOutOfSync: Bool {
        if case .gatt(.att(.databaseOutOfSync, _, _), _) = self { return true }
        return false
    }
}
