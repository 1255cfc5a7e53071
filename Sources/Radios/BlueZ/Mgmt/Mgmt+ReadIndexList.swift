import BLECore

extension Mgmt {
    /// Read Controller Index List Command (mgmt-api.txt: opcode 0x0003, controller index <non-controller>): the
    /// indexes of the adapters the kernel's mgmt interface knows.
    public struct ReadIndexList: MgmtCommand {
        public static let opcode = Opcode.readIndexList
        public init() {}
        public init(parameters: [UInt8]) throws(DecodingError) { _ = try NoParameters(parameters: parameters) }
        public var parameters: [UInt8] { [] }

        /// Return parameters: Num_Controllers (2 octets), Controller_Index[i] (2 octets each).
        public struct Reply: MgmtParameters {
            public var indexes: [UInt16]
            public init(indexes: [UInt16]) { self.indexes = indexes }

            public init(parameters: [UInt8]) throws(DecodingError) {
                var reader = ByteReader(parameters, context: "Read Controller Index List reply")
                let count = Int(try reader.readUInt16("Num_Controllers"))
                indexes = []
                for _ in 0..<count { indexes.append(try reader.readUInt16("Controller_Index")) }
                try reader.expectEnd()
            }

            public var parameters: [UInt8] {
                var writer = ByteWriter()
                writer.write(UInt16(indexes.count))
                for index in indexes { writer.write(index) }
                return writer.bytes
            }
        }
    }
}
