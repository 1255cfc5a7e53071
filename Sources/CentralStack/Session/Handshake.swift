import BLECore
import DeviceProfiles

/// Brings a board from "connected" to "ready" — MTU exchanged, services discovered, notifications enabled —
/// and keeps its subscriptions flowing into inboxes while the caller works with it.
public enum Handshake {
    /// Connects to `address`, performs the handshake and runs `body` with the session. The link is closed when
    /// `body` returns or throws, unless it is already down.
    public static func withSession<T: Sendable>(
        central: any Central, address: DeviceAddress, spec: ProfileSpec, connectTimeout: Duration,
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
                connection: connection, requested: requested, linkUp: linkUp, spec: spec, clock: clock, body)
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
        clock: any RigClock, _ body: (ProfileSession) async throws -> T
    ) async throws -> T {
        let (session, streams) = try await prepare(
            connection: connection, requested: requested, linkUp: linkUp, spec: spec, clock: clock)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            for (inbox, stream) in streams {
                group.addTask {
                    for await event in stream { inbox.put(event) }
                    inbox.finish()
                }
            }
            defer { group.cancelAll() }
            return try await body(session)
        }
    }

    private static func prepare(
        connection: any GATTConnection, requested: RigInstant, linkUp: RigInstant, spec: ProfileSpec,
        clock: any RigClock
    ) async throws(SessionError) -> (ProfileSession, [(Inbox, AsyncStream<GATT.ValueEvent>)]) {
        func step<R>(_ what: String, _ operation: () async throws(GATTError) -> R) async throws(SessionError) -> R {
            do { return try await operation() } catch { throw .gatt(error, during: what) }
        }
        let mtu = try await step("exchanging MTU") { () async throws(GATTError) in
            try await connection.exchangeMTU(preferred: spec.preferredMTU)
        }
        let mtuExchanged = clock.now
        let services = try await step("discovering primary services") { () async throws(GATTError) in
            try await connection.discoverPrimaryServices(nil)
        }
        var characteristics: [BluetoothUUID: GATT.Characteristic] = [:]
        for (uuid, required) in spec.services {
            guard let service = services.first(where: { $0.uuid == uuid }) else {
                throw .missingService(uuid, profile: spec.profile)
            }
            let found = try await step("discovering the characteristics of \(uuid)") { () async throws(GATTError) in
                try await connection.discoverCharacteristics(of: service)
            }
            for characteristic in found where characteristics[characteristic.uuid] == nil {
                characteristics[characteristic.uuid] = characteristic
            }
            if let missing = required.first(where: { uuid in !found.contains { $0.uuid == uuid } }) {
                throw .missingCharacteristic(missing, service: uuid, profile: spec.profile)
            }
        }
        let servicesDiscovered = clock.now
        var streams: [(Inbox, AsyncStream<GATT.ValueEvent>)] = []
        var inboxes: [BluetoothUUID: Inbox] = [:]
        for subscription in spec.subscriptions {
            guard let characteristic = characteristics[subscription.characteristic] else {
                let service = spec.services.first { $0.characteristics.contains(subscription.characteristic) }
                throw .missingCharacteristic(
                    subscription.characteristic, service: service?.service ?? subscription.characteristic,
                    profile: spec.profile)
            }
            let descriptors = try await step("discovering the descriptors of \(characteristic.uuid)") {
                () async throws(GATTError) in
                try await connection.discoverDescriptors(of: characteristic)
            }
            guard let cccd = descriptors.first(where: { $0.uuid == GATT.AttributeType.clientCharacteristicConfiguration })
            else {
                throw .missingCharacteristic(
                    GATT.AttributeType.clientCharacteristicConfiguration, service: characteristic.uuid, profile: spec.profile)
            }
            let stream = try await step("subscribing to \(characteristic.uuid)") { () async throws(GATTError) in
                try await connection.subscribe(to: characteristic, cccd: cccd.handle, indications: subscription.indications)
            }
            let inbox = Inbox(characteristic: characteristic.uuid)
            inboxes[characteristic.uuid] = inbox
            streams.append((inbox, stream))
        }
        let timeline = HandshakeTimeline(
            requested: requested, linkUp: linkUp, mtuExchanged: mtuExchanged, servicesDiscovered: servicesDiscovered,
            ready: clock.now)
        let session = ProfileSession(
            connection: connection, spec: spec, clock: clock, mtu: mtu, services: services,
            characteristics: characteristics, inboxes: inboxes, timeline: timeline)
        return (session, streams)
    }
}
