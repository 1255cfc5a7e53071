import BLECore
import DeviceProfiles

extension Handshake {
    /// How the warm path (a cached table) writes the CCCDs it must write again on every connection.
    public enum WarmSubscriptions: String, Sendable, Hashable {
        /// A Write Request per CCCD, one round trip each: GATT's Write Characteristic Descriptors procedure
        /// (Core 5.4 Vol 3 Part G §4.12.3), the only one GATT defines for a descriptor. The default.
        case writeRequests
        /// Every CCCD written with a Write Command, so they share connection events, then one Read Multiple of the
        /// CCCDs to confirm in ATT order that the board took them, and a Write Request for any it did not. Several
        /// round trips fewer, but outside GATT's procedures: Wireshark marks each such write "Invalid usage of
        /// this characteristic with this opcode", and a server may ignore it (then it costs a round trip more).
        /// For a rig that measures what such a central would gain; not what an app should ship.
        case batchedWriteCommands
    }

    /// The warm path, for a board whose Database Hash matched a cached table: no discovery, only the per-connection
    /// state written again — every ready subscription's CCCD, as `subscriptions` says, and the robust caching bit
    /// in Client Supported Features. Service Changed is not subscribed (robust caching reports a change as 0x12),
    /// and on-demand subscriptions wait for their first use. Subscriptions are never assumed: each is confirmed by its
    /// Write Response or by reading its CCCD back.
    static func readyFromCache(
        _ table: CachedTable, connection: any GATTConnection, spec: ProfileSpec, clock: any RigClock,
        subscriptions mode: WarmSubscriptions
    ) async throws(SessionError) -> Prepared {
        let matched = clock.now
        var inboxes: [BluetoothUUID: Inbox] = [:]
        var streams: [(Inbox, AsyncStream<GATT.ValueEvent>)] = []
        var batched: [(handle: UInt16, value: [UInt8], what: BluetoothUUID)] = []
        func subscribe(
            _ characteristic: GATT.Characteristic, cccd: UInt16, indications: Bool
        ) async throws(SessionError) {
            let stream = try await step("subscribing to \(characteristic.uuid)") { () async throws(GATTError) in
                switch mode {
                case .writeRequests:
                    try await connection.subscribe(to: characteristic, cccd: cccd, indications: indications)
                case .batchedWriteCommands:
                    try await connection.subscribeWithoutResponse(
                        to: characteristic, cccd: cccd, indications: indications)
                }
            }
            let inbox = Inbox(characteristic: characteristic.uuid)
            inboxes[characteristic.uuid] = inbox
            streams.append((inbox, stream))
            batched.append((cccd, indications ? [0x02, 0x00] : [0x01, 0x00], characteristic.uuid))
        }
        for subscription in spec.subscriptions {
            let characteristic = try subscribed(subscription, in: table.characteristics, spec: spec)
            guard let cccd = table.clientConfigurations[characteristic.uuid] else {
                throw .protocolViolation("the cached table of \(spec.profile) has no CCCD for \(characteristic.uuid)")
            }
            try await subscribe(characteristic, cccd: cccd, indications: subscription.indications)
        }
        for subscription in spec.onDemand where table.clientConfigurations[subscription.characteristic] == nil {
            throw .protocolViolation(
                "the cached table of \(spec.profile) has no CCCD for \(subscription.characteristic)")
        }
        if mode == .batchedWriteCommands {
            try await confirm(batched, connection: connection)
        }
        try await enableRobustCaching(table.clientSupportedFeatures, connection: connection)
        return Prepared(
            services: table.services, characteristics: table.characteristics, inboxes: inboxes,
            clientConfigurations: table.clientConfigurations, streams: streams,
            servicesDiscovered: matched, discovery: .cached, databaseHash: table.databaseHash)
    }

    /// Reads the batched CCCDs back with one Read Multiple and writes each the board did not take (a stack that
    /// ignores Write Commands on descriptors) again with a Write Request.
    private static func confirm(
        _ written: [(handle: UInt16, value: [UInt8], what: BluetoothUUID)], connection: any GATTConnection
    ) async throws(SessionError) {
        let values = try await step("confirming the subscriptions (Read Multiple of their CCCDs)") {
            () async throws(GATTError) in
            try await connection.readMultiple(written.map(\.handle))
        }
        let ignored = written.enumerated().filter { index, entry in
            Array(values.dropFirst(index * 2).prefix(2)) != entry.value
        }.map(\.element)
        for entry in ignored {
            try await step("subscribing to \(entry.what) (the Write Command was not taken)") {
                () async throws(GATTError) in
                try await connection.write(entry.value, to: entry.handle)
            }
        }
    }
}
