/// The Generic Attribute Profile (Core 5.4 Vol 3 Part G): the types a GATT client discovers and a GATT server
/// publishes. The client and server procedures live in `GATTClient` and `GATTServer`.
public enum GATT {
    /// Attribute types that structure a GATT database (Assigned Numbers §3.5 and §3.7).
    public enum AttributeType {
        public static let primaryService = BluetoothUUID(0x2800)
        public static let secondaryService = BluetoothUUID(0x2801)
        public static let include = BluetoothUUID(0x2802)
        public static let characteristic = BluetoothUUID(0x2803)
        public static let characteristicExtendedProperties = BluetoothUUID(0x2900)
        public static let characteristicUserDescription = BluetoothUUID(0x2901)
        public static let clientCharacteristicConfiguration = BluetoothUUID(0x2902)
        public static let serverCharacteristicConfiguration = BluetoothUUID(0x2903)
        public static let characteristicPresentationFormat = BluetoothUUID(0x2904)
    }

    /// Characteristic properties, the first byte of a characteristic declaration (Vol 3 Part G §3.3.1.1).
    public struct CharacteristicProperties: OptionSet, Hashable, Sendable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }

        public static let broadcast = Self(rawValue: 0x01)
        public static let read = Self(rawValue: 0x02)
        public static let writeWithoutResponse = Self(rawValue: 0x04)
        public static let write = Self(rawValue: 0x08)
        public static let notify = Self(rawValue: 0x10)
        public static let indicate = Self(rawValue: 0x20)
        public static let authenticatedSignedWrites = Self(rawValue: 0x40)
        public static let extendedProperties = Self(rawValue: 0x80)
    }

    /// A service as discovered by a client: its UUID and the handle range it spans.
    public struct Service: Hashable, Sendable, CustomStringConvertible {
        public var uuid: BluetoothUUID
        public var isPrimary: Bool
        public var handles: ClosedRange<UInt16>

        public init(uuid: BluetoothUUID, isPrimary: Bool = true, handles: ClosedRange<UInt16>) {
            self.uuid = uuid
            self.isPrimary = isPrimary
            self.handles = handles
        }

        public var description: String { "service \(uuid) [\(handles.lowerBound)...\(handles.upperBound)]" }
    }

    /// A characteristic as discovered by a client (Vol 3 Part G §3.3).
    public struct Characteristic: Hashable, Sendable, CustomStringConvertible {
        public var uuid: BluetoothUUID
        public var properties: CharacteristicProperties
        /// The handle of the characteristic declaration.
        public var declarationHandle: UInt16
        /// The handle of the characteristic value.
        public var valueHandle: UInt16
        /// The last handle belonging to this characteristic (its last descriptor, or its value).
        public var endHandle: UInt16

        public init(
            uuid: BluetoothUUID, properties: CharacteristicProperties, declarationHandle: UInt16, valueHandle: UInt16,
            endHandle: UInt16
        ) {
            self.uuid = uuid
            self.properties = properties
            self.declarationHandle = declarationHandle
            self.valueHandle = valueHandle
            self.endHandle = endHandle
        }

        /// The handles where this characteristic's descriptors may live.
        public var descriptorHandles: ClosedRange<UInt16>? {
            valueHandle < endHandle ? (valueHandle + 1)...endHandle : nil
        }

        public var description: String { "characteristic \(uuid) value@\(valueHandle)" }
    }

    /// A characteristic descriptor as discovered by a client.
    public struct Descriptor: Hashable, Sendable {
        public var uuid: BluetoothUUID
        public var handle: UInt16

        public init(uuid: BluetoothUUID, handle: UInt16) {
            self.uuid = uuid
            self.handle = handle
        }
    }

    /// A value pushed by the server: a notification or an indication, with when it arrived.
    public struct ValueEvent: Hashable, Sendable {
        public enum Kind: Sendable, Hashable { case notification, indication }
        public var handle: UInt16
        public var value: [UInt8]
        public var kind: Kind
        public var received: RigInstant

        public init(handle: UInt16, value: [UInt8], kind: Kind, received: RigInstant) {
            self.handle = handle
            self.value = value
            self.kind = kind
            self.received = received
        }
    }

    /// The Client Characteristic Configuration value (Vol 3 Part G §3.3.3.3).
    public struct ClientConfiguration: OptionSet, Hashable, Sendable {
        public let rawValue: UInt16
        public init(rawValue: UInt16) { self.rawValue = rawValue }
        public static let notifications = Self(rawValue: 0x0001)
        public static let indications = Self(rawValue: 0x0002)
    }
}
