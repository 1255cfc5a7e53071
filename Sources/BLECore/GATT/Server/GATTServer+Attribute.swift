extension GATTServer {
    /// One row of the attribute table (Vol 3 Part F §3.2): handle, type, permissions, value, and what GATT
    /// structure it belongs to.
    struct Attribute: Sendable, CustomStringConvertible {
        enum Role: Sendable {
            case serviceDeclaration
            case includeDeclaration
            case characteristicDeclaration
            case characteristicValue(properties: GATT.CharacteristicProperties, clientConfiguration: UInt16?)
            /// A CCCD; its value is per connection and lives in the server's connection state.
            case clientConfiguration(valueHandle: UInt16, supported: GATT.ClientConfiguration)
            case descriptor
        }

        let handle: UInt16
        let type: BluetoothUUID
        let permissions: Permissions
        let role: Role
        let length: Length
        var stored: Value
        let service: BluetoothUUID
        let characteristic: BluetoothUUID?
        /// The value handle of the characteristic this attribute belongs to (nil for service and include
        /// declarations).
        let valueHandle: UInt16?
        /// The last handle of the group this attribute starts (a service), else its own handle.
        let groupEnd: UInt16

        /// A declaration: readable by anyone, never writable, with a fixed value.
        init(
            handle: UInt16, type: BluetoothUUID, role: Role, value: [UInt8], service: BluetoothUUID,
            characteristic: BluetoothUUID? = nil, valueHandle: UInt16? = nil, groupEnd: UInt16? = nil
        ) {
            self.init(
                handle: handle, type: type, permissions: .read, role: role, length: .fixed(value.count),
                stored: .stored(value), service: service, characteristic: characteristic, valueHandle: valueHandle,
                groupEnd: groupEnd)
        }

        init(
            handle: UInt16, type: BluetoothUUID, permissions: Permissions, role: Role, length: Length, stored: Value,
            service: BluetoothUUID, characteristic: BluetoothUUID?, valueHandle: UInt16?, groupEnd: UInt16? = nil
        ) {
            self.handle = handle
            self.type = type
            self.permissions = permissions
            self.role = role
            self.length = length
            self.stored = stored
            self.service = service
            self.characteristic = characteristic
            self.valueHandle = valueHandle
            self.groupEnd = groupEnd ?? handle
        }

        var isClientConfiguration: Bool { if case .clientConfiguration = role { true } else { false } }

        /// `0x0003 2a19 read,write stored(1)`.
        var description: String {
            let value: String =
                switch stored {
                case .stored(let bytes): bytes.hexString
                case .dynamic: isClientConfiguration ? "<per connection>" : "<dynamic>"
                }
            return "\(ATT.hex(handle)) \(type) \(value)"
        }
    }

    /// Why a set of service definitions cannot form a database.
    public enum DatabaseError: Error, Hashable, Sendable, CustomStringConvertible {
        /// A service includes a UUID that names no other service of the database.
        case unknownIncludedService(BluetoothUUID, in: BluetoothUUID)
        /// The attributes would need handles past 0xFFFF.
        case tooManyAttributes(Int)
        /// A length rule allows more than 512 bytes (or is negative).
        case invalidLength(BluetoothUUID, maximum: Int)
        /// A stored initial value breaks its own length rule.
        case invalidInitialValue(BluetoothUUID, length: Int)
        /// A characteristic declares a CCCD itself; the server adds and manages it for notify and indicate.
        case clientConfigurationDeclared(characteristic: BluetoothUUID)

        public var description: String {
            switch self {
            case .unknownIncludedService(let included, let service):
                "service \(service) includes \(included), which is not another service of this database"
            case .tooManyAttributes(let count): "\(count) attributes do not fit in handles 0x0001...0xFFFF"
            case .invalidLength(let uuid, let maximum):
                "\(uuid): a maximum length of \(maximum) is outside 0...\(ATT.maximumAttributeValueLength)"
            case .invalidInitialValue(let uuid, let length):
                "\(uuid): the initial value's \(length) byte(s) break its length rule"
            case .clientConfigurationDeclared(let uuid):
                "characteristic \(uuid) declares a 0x2902 descriptor; remove it: the server adds the CCCD for "
                    + "notify and indicate itself"
            }
        }
    }
}

extension GATTServer.Database {
    /// The first service with this UUID.
    public func service(_ uuid: BluetoothUUID) -> GATT.Service? { services.first { $0.uuid == uuid } }

    /// The first characteristic with this UUID in the first service with `service`'s UUID.
    public func characteristic(_ uuid: BluetoothUUID, in service: BluetoothUUID) -> GATT.Characteristic? {
        guard let range = self.service(service)?.handles else { return nil }
        return characteristics.first { range.contains($0.declarationHandle) && $0.uuid == uuid }
    }

    /// The value handle of a characteristic: what notifications, reads and writes name.
    public func valueHandle(service: BluetoothUUID, characteristic: BluetoothUUID) -> UInt16? {
        self.characteristic(characteristic, in: service)?.valueHandle
    }

    /// The handle of a characteristic's CCCD, when it notifies or indicates.
    public func clientConfigurationHandle(service: BluetoothUUID, characteristic: BluetoothUUID) -> UInt16? {
        descriptorHandle(
            GATT.AttributeType.clientCharacteristicConfiguration, service: service, characteristic: characteristic)
    }

    /// The handle of the first descriptor of this type on a characteristic.
    public func descriptorHandle(
        _ uuid: BluetoothUUID, service: BluetoothUUID, characteristic: BluetoothUUID
    ) -> UInt16? {
        guard let found = self.characteristic(characteristic, in: service), let range = found.descriptorHandles else {
            return nil
        }
        return attributes(from: range.lowerBound, to: range.upperBound).first { $0.type == uuid }?.handle
    }

    /// The stored value at `handle`, or nil when the handle does not exist or its value is dynamic or per
    /// connection.
    public func value(of handle: UInt16) -> [UInt8]? {
        guard let attribute = attribute(handle), case .stored(let bytes) = attribute.stored else { return nil }
        return bytes
    }

    /// Replaces a stored value. Precondition: `handle` holds a stored characteristic value or descriptor and the
    /// new value keeps its length rule.
    mutating func setStoredValue(_ value: [UInt8], at handle: UInt16) {
        guard let attribute = attribute(handle), case .stored = attribute.stored else {
            preconditionFailure("\(ATT.hex(handle)) holds no stored value")
        }
        switch attribute.role {
        case .characteristicValue, .descriptor: break
        default: preconditionFailure("\(ATT.hex(handle)) is a declaration; its value is fixed")
        }
        precondition(
            attribute.length.allows(value.count), "\(value.count) byte(s) break \(attribute.type)'s length rule")
        attributes[Int(handle) - 1].stored = .stored(value)
    }
}
