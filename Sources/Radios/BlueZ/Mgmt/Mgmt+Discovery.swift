import BLECore

extension Mgmt {
    /// Start Discovery Command (mgmt-api.txt: opcode 0x0023): Address_Type (1 octet, a ``DiscoveryTypes`` mask).
    /// An LE discovery scans actively for about 10 s, then the kernel stops it and sends Discovering (0). Fails
    /// with Busy while another socket (bluetoothd) is discovering. Returns the Address_Type.
    public struct StartDiscovery: MgmtCommand {
        public static let opcode = Opcode.startDiscovery
        public var types: DiscoveryTypes
        public init(_ types: DiscoveryTypes) { self.types = types }
        public init(parameters: [UInt8]) throws(DecodingError) {
            types = try DiscoveryTypesParameter(parameters: parameters).types
        }
        public var parameters: [UInt8] { [types.rawValue] }
        public typealias Reply = DiscoveryTypesParameter
    }

    /// Stop Discovery Command (mgmt-api.txt: opcode 0x0024): Address_Type (1 octet), the mask discovery was started
    /// with. Returns the Address_Type.
    public struct StopDiscovery: MgmtCommand {
        public static let opcode = Opcode.stopDiscovery
        public var types: DiscoveryTypes
        public init(_ types: DiscoveryTypes) { self.types = types }
        public init(parameters: [UInt8]) throws(DecodingError) {
            types = try DiscoveryTypesParameter(parameters: parameters).types
        }
        public var parameters: [UInt8] { [types.rawValue] }
        public typealias Reply = DiscoveryTypesParameter
    }

    /// One Address_Type octet: the parameters, and the return parameters, of Start and Stop Discovery.
    public struct DiscoveryTypesParameter: MgmtParameters {
        public var types: DiscoveryTypes
        public init(_ types: DiscoveryTypes) { self.types = types }
        public init(parameters: [UInt8]) throws(DecodingError) {
            var reader = ByteReader(parameters, context: "discovery Address_Type")
            types = DiscoveryTypes(rawValue: try reader.readUInt8("Address_Type"))
            try reader.expectEnd()
        }
        public var parameters: [UInt8] { [types.rawValue] }
    }

    /// Discovering Event (mgmt-api.txt: event code 0x0013): Address_Type (1 octet), Discovering (1 octet). Sent
    /// when discovery starts and when it stops, whoever started it.
    public struct Discovering: MgmtEvent {
        public static let code = EventCode.discovering
        public var types: DiscoveryTypes
        public var discovering: Bool
        public init(types: DiscoveryTypes, discovering: Bool) {
            self.types = types
            self.discovering = discovering
        }
        public init(parameters: [UInt8]) throws(DecodingError) {
            var reader = ByteReader(parameters, context: "Discovering event")
            types = DiscoveryTypes(rawValue: try reader.readUInt8("Address_Type"))
            discovering = try reader.readUInt8("Discovering") != 0
            try reader.expectEnd()
        }
        public var parameters: [UInt8] { [types.rawValue, discovering ? 1 : 0] }
    }
}
