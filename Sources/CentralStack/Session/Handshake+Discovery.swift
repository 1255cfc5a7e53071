import BLECore
import DeviceProfiles

extension Handshake {
    /// The cold path: discover the profile's services, characteristics and CCCDs (of the ready and the on-demand
    /// subscriptions), subscribe the ready ones with Write Requests. With a cache, a board that has the Generic
    /// Attribute service with Database Hash also gets robust caching enabled (a table change then comes as 0x12
    /// Database Out Of Sync, so Service Changed is not subscribed), and its table is cached under the hash read
    /// after discovery.
    static func discover(
        connection: any GATTConnection, spec: ProfileSpec, clock: any RigClock, cache: (any GATTCache)?,
        board: CachedBoard
    ) async throws(SessionError) -> Prepared {
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
        var caching: GenericAttributeHandles?
        if cache != nil, let service = services.first(where: { $0.uuid == GATT.GenericAttribute.service }) {
            caching = try await genericAttribute(service, connection: connection)
        }
        let servicesDiscovered = clock.now
        var configurations: [BluetoothUUID: UInt16] = [:]
        for subscription in spec.subscriptions + spec.onDemand {
            let characteristic = try subscribed(subscription, in: characteristics, spec: spec)
            configurations[characteristic.uuid] = try await clientConfiguration(
                of: characteristic, connection: connection, profile: spec.profile)
        }
        var inboxes: [BluetoothUUID: Inbox] = [:]
        var streams: [(Inbox, AsyncStream<GATT.ValueEvent>)] = []
        var hash: [UInt8]?
        if let caching {
            try await enableRobustCaching(caching.clientSupportedFeatures, connection: connection)
            hash = try await step("reading the Database Hash") { () async throws(GATTError) in
                try await connection.read(caching.databaseHash)
            }
        }
        for subscription in spec.subscriptions {
            let characteristic = characteristics[subscription.characteristic]!
            let cccd = configurations[characteristic.uuid]!
            let stream = try await step("subscribing to \(characteristic.uuid)") { () async throws(GATTError) in
                try await connection.subscribe(to: characteristic, cccd: cccd, indications: subscription.indications)
            }
            let inbox = Inbox(characteristic: characteristic.uuid)
            inboxes[characteristic.uuid] = inbox
            streams.append((inbox, stream))
        }
        if let cache, let caching, let hash, hash.count == 16 {
            cache.store(
                CachedTable(
                    databaseHash: hash, services: services, characteristics: characteristics,
                    clientConfigurations: configurations, serviceChanged: caching.serviceChanged,
                    serviceChangedConfiguration: caching.serviceChangedConfiguration,
                    clientSupportedFeatures: caching.clientSupportedFeatures),
                for: board)
        }
        return Prepared(
            services: services, characteristics: characteristics, inboxes: inboxes,
            clientConfigurations: configurations, streams: streams,
            servicesDiscovered: servicesDiscovered, discovery: .full, databaseHash: hash)
    }

    /// The handles robust caching needs, from a discovered Generic Attribute service.
    struct GenericAttributeHandles {
        var serviceChanged: GATT.Characteristic
        var serviceChangedConfiguration: UInt16
        var clientSupportedFeatures: UInt16
        var databaseHash: UInt16
    }

    /// Discovers the Generic Attribute service; nil when it lacks Service Changed (with its CCCD), Client
    /// Supported Features or Database Hash: such a board is not cached.
    private static func genericAttribute(
        _ service: GATT.Service, connection: any GATTConnection
    ) async throws(SessionError) -> GenericAttributeHandles? {
        let found = try await step("discovering the characteristics of the Generic Attribute service") {
            () async throws(GATTError) in
            try await connection.discoverCharacteristics(of: service)
        }
        func first(_ uuid: BluetoothUUID) -> GATT.Characteristic? { found.first { $0.uuid == uuid } }
        guard let changed = first(GATT.GenericAttribute.serviceChanged), changed.properties.contains(.indicate),
            let features = first(GATT.GenericAttribute.clientSupportedFeatures),
            let hash = first(GATT.GenericAttribute.databaseHash)
        else { return nil }
        let descriptors = try await step("discovering the descriptors of Service Changed") {
            () async throws(GATTError) in
            try await connection.discoverDescriptors(of: changed)
        }
        guard let cccd = descriptors.first(where: { $0.uuid == GATT.AttributeType.clientCharacteristicConfiguration })
        else { return nil }
        return GenericAttributeHandles(
            serviceChanged: changed, serviceChangedConfiguration: cccd.handle,
            clientSupportedFeatures: features.valueHandle, databaseHash: hash.valueHandle)
    }

    /// The discovered characteristic a subscription names.
    static func subscribed(
        _ subscription: ProfileSpec.Subscription, in characteristics: [BluetoothUUID: GATT.Characteristic],
        spec: ProfileSpec
    ) throws(SessionError) -> GATT.Characteristic {
        guard let characteristic = characteristics[subscription.characteristic] else {
            let service = spec.services.first { $0.characteristics.contains(subscription.characteristic) }
            throw .missingCharacteristic(
                subscription.characteristic, service: service?.service ?? subscription.characteristic,
                profile: spec.profile)
        }
        return characteristic
    }

    /// Finds a characteristic's CCCD by discovering its descriptors.
    private static func clientConfiguration(
        of characteristic: GATT.Characteristic, connection: any GATTConnection, profile: Profile
    ) async throws(SessionError) -> UInt16 {
        let descriptors = try await step("discovering the descriptors of \(characteristic.uuid)") {
            () async throws(GATTError) in
            try await connection.discoverDescriptors(of: characteristic)
        }
        guard let cccd = descriptors.first(where: { $0.uuid == GATT.AttributeType.clientCharacteristicConfiguration })
        else {
            throw .missingCharacteristic(
                GATT.AttributeType.clientCharacteristicConfiguration, service: characteristic.uuid, profile: profile)
        }
        return cccd.handle
    }

    /// Writes the robust caching bit to Client Supported Features (Vol 3 Part G §7.2).
    static func enableRobustCaching(_ handle: UInt16, connection: any GATTConnection) async throws(SessionError) {
        try await step("enabling robust caching (Client Supported Features)") { () async throws(GATTError) in
            try await connection.write([GATT.GenericAttribute.ClientFeatures.robustCaching.rawValue], to: handle)
        }
    }
}
