import BLECore
import DeviceProfiles

/// A connected, discovered and subscribed board: the GATT layout the stack found, an inbox per subscription,
/// and the moments each handshake step finished (for `handshake.ready_ms`).
public final class ProfileSession: Sendable {
    public let connection: any GATTConnection
    public let spec: ProfileSpec
    public let clock: any RigClock
    public let mtu: UInt16
    public let services: [GATT.Service]
    /// Every discovered characteristic of the required services, by UUID.
    public let characteristics: [BluetoothUUID: GATT.Characteristic]
    public let inboxes: [BluetoothUUID: Inbox]
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
        timeline: HandshakeTimeline, databaseHash: [UInt8]? = nil, cache: (any GATTCache)? = nil
    ) {
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

    public func inbox(_ uuid: BluetoothUUID) throws(SessionError) -> Inbox {
        guard let inbox = inboxes[uuid] else {
            throw .protocolViolation("no subscription to \(uuid) in the \(spec.profile) profile")
        }
        return inbox
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

    /// Service Changed indications received during the session (each invalidated the cached table).
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
    /// Every subscription's CCCD written: the board is ready.
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
