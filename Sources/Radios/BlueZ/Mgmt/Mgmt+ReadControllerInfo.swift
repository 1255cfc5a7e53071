import BLECore

extension Mgmt {
    /// Read Controller Information Command (mgmt-api.txt: opcode 0x0004): the adapter's address, version,
    /// manufacturer, settings and names.
    public struct ReadControllerInfo: MgmtCommand {
        public static let opcode = Opcode.readControllerInfo
        public init() {}
        public init(parameters: [UInt8]) throws(DecodingError) { _ = try NoParameters(parameters: parameters) }
        public var parameters: [UInt8] { [] }

        /// Return parameters: Address (6), Bluetooth_Version (1), Manufacturer (2), Supported_Settings (4),
        /// Current_Settings (4), Class_Of_Device (3), Name (249), Short_Name (11): 280 octets.
        public struct Reply: MgmtParameters {
            /// The adapter's public address (BD_ADDR), or the static random one it uses.
            public var address: UInt64
            public var version: UInt8
            public var manufacturer: UInt16
            public var supported: Settings
            public var current: Settings
            public var classOfDevice: UInt32
            public var name: String
            public var shortName: String

            public init(
                address: UInt64, version: UInt8 = 0x0C, manufacturer: UInt16 = 0x05F1, supported: Settings,
                current: Settings, classOfDevice: UInt32 = 0, name: String = "", shortName: String = ""
            ) {
                self.address = address
                self.version = version
                self.manufacturer = manufacturer
                self.supported = supported
                self.current = current
                self.classOfDevice = classOfDevice
                self.name = name
                self.shortName = shortName
            }

            public init(parameters: [UInt8]) throws(DecodingError) {
                var reader = ByteReader(parameters, context: "Read Controller Information reply")
                address = try reader.readBytes(6, "Address").reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
                version = try reader.readUInt8("Bluetooth_Version")
                manufacturer = try reader.readUInt16("Manufacturer")
                supported = Settings(rawValue: try reader.readUInt32("Supported_Settings"))
                current = Settings(rawValue: try reader.readUInt32("Current_Settings"))
                classOfDevice = try reader.readUInt24("Class_Of_Device")
                name = Self.text(try reader.readBytes(249, "Name"))
                shortName = Self.text(try reader.readBytes(11, "Short_Name"))
                try reader.expectEnd()
            }

            public var parameters: [UInt8] {
                var writer = ByteWriter(capacity: 280)
                writer.writeBDAddr(address)
                writer.write(version)
                writer.write(manufacturer)
                writer.write(supported.rawValue)
                writer.write(current.rawValue)
                writer.writeUInt24(classOfDevice)
                writer.write(contentsOf: Self.field(name, 249))
                writer.write(contentsOf: Self.field(shortName, 11))
                return writer.bytes
            }

            private static func text(_ bytes: [UInt8]) -> String {
                String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            }

            /// A NUL-terminated, zero-padded field of `size` octets.
            private static func field(_ text: String, _ size: Int) -> [UInt8] {
                let bytes = Array(text.utf8.prefix(size - 1))
                return bytes + [UInt8](repeating: 0, count: size - bytes.count)
            }
        }
    }
}
