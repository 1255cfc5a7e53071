import BLECore
import DeviceProfiles

extension Handshake {
    /// The warm path, for a board whose Database Hash matched a cached table: no discovery. Every subscription's
    /// CCCD (Service Changed's included) is written with a Write Command, so they share connection events instead
    /// of costing a round trip each; one Read Multiple of those CCCDs then confirms, in ATT order, that the board
    /// took every one of them, and a Write Request enables robust caching. A CCCD that reads back wrong (a server
    /// that ignores Write Commands on descriptors) is written again with a Write Request: subscriptions are never
    /// assumed.
    static func readyFromCache(
        _ table: CachedTable, connection: any GATTConnection, spec: ProfileSpec, clock: any RigClock
    ) async throws(SessionError) -> Prepared {
        let matched = clock.now
        var inboxes: [BluetoothUUID: Inbox] = [:]
        var streams: [(Inbox, AsyncStream<GATT.ValueEvent>)] = []
        var expected: [(handle: UInt16, value: [UInt8], what: BluetoothUUID)] = []
        func subscribe(
            _ characteristic: GATT.Characteristic, cccd: UInt16, indications: Bool
        ) async throws(SessionError) {
            let stream = try await step("subscribing to \(characteristic.uuid)") { () async throws(GATTError) in
                try await connection.subscribeWithoutResponse(to: characteristic, cccd: cccd, indications: indications)
            }
            let inbox = Inbox(characteristic: characteristic.uuid)
            inboxes[characteristic.uuid] = inbox
            streams.append((inbox, stream))
            expected.append((cccd, indications ? [0x02, 0x00] : [0x01, 0x00], characteristic.uuid))
        }
        try await subscribe(table.serviceChanged, cccd: table.serviceChangedConfiguration, indications: true)
        for subscription in spec.subscriptions {
            let characteristic = try subscribed(subscription, in: table.characteristics, spec: spec)
            guard let cccd = table.clientConfigurations[characteristic.uuid] else {
                throw .protocolViolation("the cached table of \(spec.profile) has no CCCD for \(characteristic.uuid)")
            }
            try await subscribe(characteristic, cccd: cccd, indications: subscription.indications)
        }
        let values = try await step("confirming the subscriptions (Read Multiple of their CCCDs)") {
            () async throws(GATTError) in
            try await connection.readMultiple(expected.map(\.handle))
        }
        let ignored = expected.enumerated().filter { index, entry in
            Array(values.dropFirst(index * 2).prefix(2)) != entry.value
        }.map(\.element)
        for entry in ignored {
            try await step("subscribing to \(entry.what) (the Write Command was not taken)") {
                () async throws(GATTError) in
                try await connection.write(entry.value, to: entry.handle)
            }
        }
        try await enableRobustCaching(table.clientSupportedFeatures, connection: connection)
        return Prepared(
            services: table.services, characteristics: table.characteristics, inboxes: inboxes, streams: streams,
            servicesDiscovered: matched, discovery: .cached, databaseHash: table.databaseHash)
    }
}
