extension GATTServer {
    /// A service as a board model declares it (Vol 3 Part G §3.1). Its attributes are, in order: the service
    /// declaration, one include declaration per entry of `includes`, then each characteristic's attributes.
    public struct Service: Hashable, Sendable {
        public var uuid: BluetoothUUID
        public var isPrimary: Bool
        /// UUIDs of other services of the same database to include (Vol 3 Part G §3.2); each names the first
        /// service with that UUID.
        public var includes: [BluetoothUUID]
        public var characteristics: [Characteristic]

        public init(
            _ uuid: BluetoothUUID, isPrimary: Bool = true, includes: [BluetoothUUID] = [],
            characteristics: [Characteristic]
        ) {
            self.uuid = uuid
            self.isPrimary = isPrimary
            self.includes = includes
            self.characteristics = characteristics
        }
    }

    /// A characteristic as a board model declares it (Vol 3 Part G §3.3). Its attributes are, in order: the
    /// declaration, the value, a Client Characteristic Configuration descriptor when `properties` contains notify
    /// or indicate (added automatically; the server keeps one per connection), then `descriptors` in order.
    public struct Characteristic: Hashable, Sendable {
        public var uuid: BluetoothUUID
        public var properties: GATT.CharacteristicProperties
        /// Who may read and write the value. Derived from `properties` unless given.
        public var permissions: Permissions
        public var value: Value
        public var length: Length
        public var descriptors: [Descriptor]
        /// Who may read and write the automatic CCCD. Anyone, by default.
        public var clientConfigurationPermissions: Permissions

        public init(
            _ uuid: BluetoothUUID, properties: GATT.CharacteristicProperties, permissions: Permissions? = nil,
            value: Value = .stored([]), length: Length = .variable(), descriptors: [Descriptor] = [],
            clientConfigurationPermissions: Permissions = [.read, .write]
        ) {
            self.uuid = uuid
            self.properties = properties
            self.permissions = permissions ?? Permissions(properties)
            self.value = value
            self.length = length
            self.descriptors = descriptors
            self.clientConfigurationPermissions = clientConfigurationPermissions
        }

        /// The CCCD bits this characteristic supports: notifications and/or indications.
        public var supportedConfiguration: GATT.ClientConfiguration {
            var supported: GATT.ClientConfiguration = []
            if properties.contains(.notify) { supported.insert(.notifications) }
            if properties.contains(.indicate) { supported.insert(.indications) }
            return supported
        }
    }

    /// A characteristic descriptor other than the CCCD, which the server adds and manages itself
    /// (Vol 3 Part G §3.3.3).
    public struct Descriptor: Hashable, Sendable {
        public var uuid: BluetoothUUID
        public var permissions: Permissions
        public var value: Value
        public var length: Length

        public init(
            _ uuid: BluetoothUUID, permissions: Permissions = .read, value: Value, length: Length = .variable()
        ) {
            self.uuid = uuid
            self.permissions = permissions
            self.value = value
            self.length = length
        }

        /// A read-only Characteristic User Description, UTF-8 (Vol 3 Part G §3.3.3.2).
        public static func userDescription(_ text: String) -> Self {
            Self(GATT.AttributeType.characteristicUserDescription, value: .stored(Array(text.utf8)))
        }

        /// A Characteristic Presentation Format descriptor (Vol 3 Part G §3.3.3.5): format, exponent, unit,
        /// namespace and description.
        public static func presentationFormat(
            format: UInt8, exponent: Int8 = 0, unit: UInt16, namespace: UInt8 = 0x01, description: UInt16 = 0
        ) -> Self {
            var writer = ByteWriter(capacity: 7)
            writer.write(format)
            writer.write(exponent)
            writer.write(unit)
            writer.write(namespace)
            writer.write(description)
            return Self(
                GATT.AttributeType.characteristicPresentationFormat, value: .stored(writer.bytes), length: .fixed(7))
        }
    }

    /// Where an attribute's value lives.
    public enum Value: Hashable, Sendable {
        /// The server holds the value; writes the application accepts replace it, and the owner may change it with
        /// ``GATTServer/setValue(_:for:)``.
        case stored([UInt8])
        /// The application produces the value at every read (``GATTServerApplication/read(_:)``) and takes every
        /// write; the server keeps nothing.
        case dynamic

        /// A stored UTF-8 string, as the Device Information strings are.
        public static func stored(_ text: String) -> Self { .stored(Array(text.utf8)) }
    }

    /// How long a value may be. A write of another length fails with 0x0D Invalid Attribute Value Length.
    public enum Length: Hashable, Sendable {
        /// Any length up to `maximum` (at most 512, §3.2.9).
        case variable(maximum: Int = ATT.maximumAttributeValueLength)
        /// Exactly this many bytes. Read Blob on a fixed-length value that fits one Read Response fails with
        /// 0x0B Attribute Not Long (Vol 3 Part F §3.4.4.5).
        case fixed(Int)

        /// The longest value allowed.
        public var maximum: Int {
            switch self {
            case .variable(let maximum): maximum
            case .fixed(let count): count
            }
        }

        /// True when `count` bytes is an allowed length.
        public func allows(_ count: Int) -> Bool {
            switch self {
            case .variable(let maximum): count <= maximum
            case .fixed(let length): count == length
            }
        }

        var fixedLength: Int? { if case .fixed(let count) = self { count } else { nil } }
    }
}
