extension GATTServer.Service {
    /// The Generic Attribute service with what robust caching needs (Core 5.4 Vol 3 Part G §7): Service Changed
    /// (indicate), Client Supported Features (read, write; the server keeps one value per client) and Database
    /// Hash (read; the ``GATTServer/Database`` fills it in). Put it first in the table so that its handles — above
    /// all Service Changed's, which must never move — stay where they are whatever follows.
    public static func genericAttribute() -> Self {
        typealias C = GATTServer.Characteristic
        return Self(
            GATT.GenericAttribute.service,
            characteristics: [
                C(
                    GATT.GenericAttribute.serviceChanged, properties: .indicate, permissions: [],
                    value: .stored([0, 0, 0, 0]), length: .fixed(4)),
                C(
                    GATT.GenericAttribute.clientSupportedFeatures, properties: [.read, .write], value: .dynamic,
                    length: .variable(maximum: 16)),
                C(
                    GATT.GenericAttribute.databaseHash, properties: .read,
                    value: .stored([UInt8](repeating: 0, count: 16)), length: .fixed(16)),
            ])
    }
}

extension GATTServer.Database {
    /// The attribute types whose handle, type and value go into the hash (Vol 3 Part G §7.3.1).
    static let hashedWithValue: Set<BluetoothUUID> = [
        GATT.AttributeType.primaryService, GATT.AttributeType.secondaryService, GATT.AttributeType.include,
        GATT.AttributeType.characteristic, GATT.AttributeType.characteristicExtendedProperties,
    ]

    /// The attribute types whose handle and type (not value) go into the hash.
    static let hashedWithoutValue: Set<BluetoothUUID> = [
        GATT.AttributeType.characteristicUserDescription, GATT.AttributeType.clientCharacteristicConfiguration,
        GATT.AttributeType.serverCharacteristicConfiguration, GATT.AttributeType.characteristicPresentationFormat,
        GATT.AttributeType.characteristicAggregateFormat,
    ]

    /// The message the Database Hash is the AES-CMAC of (Vol 3 Part G §7.3.1), in handle order: for every
    /// service, include and characteristic declaration and every Characteristic Extended Properties descriptor,
    /// its handle (little-endian), its type and its value; for every User Description, CCCD, SCCD, Presentation
    /// Format and Aggregate Format descriptor, its handle and type. Nothing else: characteristic values and other
    /// descriptors change without changing the hash.
    public var hashMessage: [UInt8] { Self.hashMessage(attributes) }

    static func hashMessage(_ attributes: [GATTServer.Attribute]) -> [UInt8] {
        var writer = ByteWriter()
        for attribute in attributes {
            let withValue = hashedWithValue.contains(attribute.type)
            guard withValue || hashedWithoutValue.contains(attribute.type) else { continue }
            writer.write(attribute.handle)
            writer.write(contentsOf: attribute.type.attBytes)
            if withValue, case .stored(let value) = attribute.stored { writer.write(contentsOf: value) }
        }
        return writer.bytes
    }

    /// The Database Hash as a server sends it: AES-CMAC with the all-zero key over ``hashMessage``, least
    /// significant octet first (it is a uint128 on the air).
    public var hash: [UInt8] { Self.hash(attributes) }

    static func hash(_ attributes: [GATTServer.Attribute]) -> [UInt8] {
        AESCMAC.tag(key: [UInt8](repeating: 0, count: 16), message: hashMessage(attributes)).reversed()
    }

    /// Stores the hash in every Database Hash characteristic value of the table (it does not cover itself).
    static func fillDatabaseHash(_ attributes: inout [GATTServer.Attribute]) {
        let targets = attributes.indices.filter { index in
            guard attributes[index].type == GATT.GenericAttribute.databaseHash,
                case .characteristicValue = attributes[index].role
            else { return false }
            return true
        }
        guard !targets.isEmpty else { return }
        let hash = hash(attributes)
        for index in targets { attributes[index].stored = .stored(hash) }
    }
}
