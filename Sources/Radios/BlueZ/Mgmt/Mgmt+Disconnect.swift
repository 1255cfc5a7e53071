import BLECore

extension Mgmt {
    /// Disconnect Command (mgmt-api.txt: opcode 0x0014): Address (6 octets), Address_Type (1 octet). The kernel
    /// closes the link at once with HCI reason 0x13 (the peer sees "remote user terminated"), rather than after
    /// the two seconds it waits when the last socket on a link closes. Returns the Address and Address_Type.
    public struct Disconnect: MgmtCommand {
        public static let opcode = Opcode.disconnect
        public var address: Address
        public init(_ address: Address) { self.address = address }
        public init(parameters: [UInt8]) throws(DecodingError) {
            address = try AddressParameter(parameters: parameters).address
        }
        public var parameters: [UInt8] { AddressParameter(address).parameters }
        public typealias Reply = AddressParameter
    }

    /// An Address and Address_Type and nothing else: Disconnect's parameters and return parameters.
    public struct AddressParameter: MgmtParameters {
        public var address: Address
        public init(_ address: Address) { self.address = address }
        public init(parameters: [UInt8]) throws(DecodingError) {
            var reader = ByteReader(parameters, context: "mgmt address")
            address = try reader.readMgmtAddress()
            try reader.expectEnd()
        }
        public var parameters: [UInt8] {
            var writer = ByteWriter(capacity: 7)
            writer.write(address)
            return writer.bytes
        }
    }
}
