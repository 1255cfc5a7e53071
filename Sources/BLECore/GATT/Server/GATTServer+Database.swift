extension GATTServer {
    /// The attribute table built from a board model's services. Handles are allocated from 0x0001 in declaration
    /// order: each service declaration, its include declarations, then per characteristic its declaration, value,
    /// automatic CCCD and descriptors. Stored values live here; per-connection state (CCCDs, MTU) lives in the
    /// ``GATTServer``.
    public struct Database: Sendable, CustomStringConvertible {
        /// One attribute. `attributes[i]` has handle `i + 1`.
        var attributes: [Attribute]
        /// The services with their handle ranges, in handle order.
        public let services: [GATT.Service]
        /// The characteristics with their handles, in handle order.
        public let characteristics: [GATT.Characteristic]

        public init(services definitions: [Service]) throws(DatabaseError) {
            let ranges = try Self.allocate(definitions)
            var attributes: [Attribute] = []
            var characteristics: [GATT.Characteristic] = []
            for (service, range) in zip(definitions, ranges) {
                let type = service.isPrimary ? GATT.AttributeType.primaryService : GATT.AttributeType.secondaryService
                attributes.append(
                    Attribute(
                        handle: range.lowerBound, type: type, role: .serviceDeclaration, value: service.uuid.attBytes,
                        service: service.uuid, groupEnd: range.upperBound))
                for included in service.includes {
                    guard let index = definitions.firstIndex(where: { $0.uuid == included }), included != service.uuid
                    else { throw .unknownIncludedService(included, in: service.uuid) }
                    var value = ByteWriter(capacity: 6)
                    value.write(ranges[index].lowerBound)
                    value.write(ranges[index].upperBound)
                    if let short = included.uint16 { value.write(short) }
                    attributes.append(
                        Attribute(
                            handle: UInt16(attributes.count + 1), type: GATT.AttributeType.include,
                            role: .includeDeclaration, value: value.bytes, service: service.uuid))
                }
                for definition in service.characteristics {
                    characteristics.append(try Self.append(definition, of: service.uuid, to: &attributes))
                }
            }
            Self.fillDatabaseHash(&attributes)
            self.attributes = attributes
            self.services = zip(definitions, ranges).map {
                GATT.Service(uuid: $0.uuid, isPrimary: $0.isPrimary, handles: $1)
            }
            self.characteristics = characteristics
        }

        /// The handle range of every service, checking that all of them fit below 0xFFFF.
        private static func allocate(_ definitions: [Service]) throws(DatabaseError) -> [ClosedRange<UInt16>] {
            var next = 1
            var ranges: [ClosedRange<UInt16>] = []
            for service in definitions {
                let count =
                    1 + service.includes.count
                    + service.characteristics.reduce(0) { total, c in
                        total + 2 + (c.supportedConfiguration.isEmpty ? 0 : 1) + c.descriptors.count
                    }
                guard next + count - 1 <= Int(UInt16.max) else { throw .tooManyAttributes(next + count - 1) }
                ranges.append(UInt16(next)...UInt16(next + count - 1))
                next += count
            }
            return ranges
        }

        /// Appends a characteristic's attributes and returns how a client will discover it.
        private static func append(
            _ definition: Characteristic, of service: BluetoothUUID, to attributes: inout [Attribute]
        ) throws(DatabaseError) -> GATT.Characteristic {
            let declarationHandle = UInt16(attributes.count + 1)
            let valueHandle = declarationHandle + 1
            let supported = definition.supportedConfiguration
            let cccdHandle = supported.isEmpty ? nil : valueHandle + 1
            var declaration = ByteWriter(capacity: 19)
            declaration.write(definition.properties.rawValue)
            declaration.write(valueHandle)
            declaration.write(contentsOf: definition.uuid.attBytes)
            attributes.append(
                Attribute(
                    handle: declarationHandle, type: GATT.AttributeType.characteristic,
                    role: .characteristicDeclaration,
                    value: declaration.bytes, service: service, characteristic: definition.uuid,
                    valueHandle: valueHandle))
            try check(definition.value, definition.length, definition.uuid)
            attributes.append(
                Attribute(
                    handle: valueHandle, type: definition.uuid, permissions: definition.permissions,
                    role: .characteristicValue(properties: definition.properties, clientConfiguration: cccdHandle),
                    length: definition.length, stored: definition.value, service: service,
                    characteristic: definition.uuid, valueHandle: valueHandle))
            if let cccdHandle {
                attributes.append(
                    Attribute(
                        handle: cccdHandle, type: GATT.AttributeType.clientCharacteristicConfiguration,
                        permissions: definition.clientConfigurationPermissions,
                        role: .clientConfiguration(valueHandle: valueHandle, supported: supported), length: .fixed(2),
                        stored: .dynamic, service: service, characteristic: definition.uuid, valueHandle: valueHandle))
            }
            for descriptor in definition.descriptors {
                guard descriptor.uuid != GATT.AttributeType.clientCharacteristicConfiguration else {
                    throw .clientConfigurationDeclared(characteristic: definition.uuid)
                }
                try check(descriptor.value, descriptor.length, descriptor.uuid)
                attributes.append(
                    Attribute(
                        handle: UInt16(attributes.count + 1), type: descriptor.uuid,
                        permissions: descriptor.permissions,
                        role: .descriptor, length: descriptor.length, stored: descriptor.value, service: service,
                        characteristic: definition.uuid, valueHandle: valueHandle))
            }
            return GATT.Characteristic(
                uuid: definition.uuid, properties: definition.properties, declarationHandle: declarationHandle,
                valueHandle: valueHandle, endHandle: UInt16(attributes.count))
        }

        private static func check(_ value: Value, _ length: Length, _ uuid: BluetoothUUID) throws(DatabaseError) {
            guard length.maximum >= 0, length.maximum <= ATT.maximumAttributeValueLength else {
                throw .invalidLength(uuid, maximum: length.maximum)
            }
            if case .stored(let bytes) = value, !length.allows(bytes.count) {
                throw .invalidInitialValue(uuid, length: bytes.count)
            }
        }

        /// The number of attributes; the last handle.
        public var attributeCount: Int { attributes.count }

        /// The attribute at `handle`, or nil for 0x0000 and handles past the end.
        func attribute(_ handle: UInt16) -> Attribute? {
            handle == 0 || Int(handle) > attributes.count ? nil : attributes[Int(handle) - 1]
        }

        /// The attributes whose handles lie in `start...end`, clamped to the table.
        func attributes(from start: UInt16, to end: UInt16) -> ArraySlice<Attribute> {
            let lower = Int(start) - 1
            let upper = min(Int(end), attributes.count)
            return lower < upper ? attributes[lower..<upper] : []
        }

        public var description: String {
            attributes.map(\.description).joined(separator: "\n")
        }
    }
}
