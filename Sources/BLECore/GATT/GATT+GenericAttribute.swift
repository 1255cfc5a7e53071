extension GATT {
    /// The Generic Attribute service (Core 5.4 Vol 3 Part G §7) and what a server publishes in it for caching:
    /// Service Changed, Client Supported Features and Database Hash.
    public enum GenericAttribute {
        /// The service, 0x1801.
        public static let service = BluetoothUUID(0x1801)
        /// Service Changed (§7.1): indicates the affected handle range, `start u16 | end u16`.
        public static let serviceChanged = BluetoothUUID(0x2A05)
        /// Client Supported Features (§7.2): per client, bits a client sets and may never clear.
        public static let clientSupportedFeatures = BluetoothUUID(0x2B29)
        /// Database Hash (§7.3): 128-bit AES-CMAC over the table's structure, least significant octet first.
        public static let databaseHash = BluetoothUUID(0x2B2A)

        /// Client Supported Features bits (§7.2, Table 7.6).
        public struct ClientFeatures: OptionSet, Hashable, Sendable {
            public let rawValue: UInt8
            public init(rawValue: UInt8) { self.rawValue = rawValue }

            /// Bit 0: the client wants robust caching (§2.5.2.1): Database Out Of Sync instead of silent
            /// mismatches while it is change-unaware.
            public static let robustCaching = Self(rawValue: 0x01)
            /// Bit 1: Enhanced ATT bearer.
            public static let enhancedATTBearer = Self(rawValue: 0x02)
            /// Bit 2: Multiple Handle Value Notifications.
            public static let multipleHandleValueNotifications = Self(rawValue: 0x04)

            /// Every bit this version of the specification defines; a server keeps only these.
            public static let defined: Self = [.robustCaching, .enhancedATTBearer, .multipleHandleValueNotifications]
        }

        /// The Service Changed value for `range`: start and end handle, little-endian.
        public static func serviceChangedValue(_ range: ClosedRange<UInt16>) -> [UInt8] {
            [
                UInt8(truncatingIfNeeded: range.lowerBound), UInt8(range.lowerBound >> 8),
                UInt8(truncatingIfNeeded: range.upperBound), UInt8(range.upperBound >> 8),
            ]
        }
    }
}

extension GATT.AttributeType {
    /// Characteristic Aggregate Format (0x2905), one of the descriptors the Database Hash covers.
    public static let characteristicAggregateFormat = BluetoothUUID(0x2905)
}

extension GATT {
    /// An attribute handle with the value read from it.
    public struct HandleValue: Hashable, Sendable {
        public var handle: UInt16
        public var value: [UInt8]

        public init(handle: UInt16, value: [UInt8]) {
            self.handle = handle
            self.value = value
        }
    }
}
