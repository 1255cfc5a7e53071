import BLECore

extension Mgmt {
    /// Command Complete Event (mgmt-api.txt: event code 0x0001): Command_Opcode (2 octets), Status (1 octet),
    /// Return_Parameters. The answer to one command, on the socket that sent it.
    public struct CommandComplete: MgmtEvent {
        public static let code = EventCode.commandComplete
        public var opcode: Opcode
        public var status: Status
        public var returned: [UInt8]

        public init(opcode: Opcode, status: Status, returned: [UInt8] = []) {
            self.opcode = opcode
            self.status = status
            self.returned = returned
        }

        /// The success of `command` with `reply`.
        public init<C: MgmtCommand>(_: C.Type, reply: C.Reply) {
            self.init(opcode: C.opcode, status: .success, returned: reply.parameters)
        }

        public init(parameters: [UInt8]) throws(DecodingError) {
            var reader = ByteReader(parameters, context: "Command Complete event")
            opcode = Opcode(rawValue: try reader.readUInt16("Command_Opcode"))
            status = Status(rawValue: try reader.readUInt8("Status"))
            returned = reader.readRemaining()
        }

        public var parameters: [UInt8] {
            var writer = ByteWriter(capacity: 3 + returned.count)
            writer.write(opcode.rawValue)
            writer.write(status.rawValue)
            writer.write(contentsOf: returned)
            return writer.bytes
        }
    }

    /// Command Status Event (mgmt-api.txt: event code 0x0002): Command_Opcode (2 octets), Status (1 octet). How a
    /// command that fails before it has return parameters is answered (a permission refused, an invalid index).
    public struct CommandStatus: MgmtEvent {
        public static let code = EventCode.commandStatus
        public var opcode: Opcode
        public var status: Status

        public init(opcode: Opcode, status: Status) {
            self.opcode = opcode
            self.status = status
        }

        public init(parameters: [UInt8]) throws(DecodingError) {
            var reader = ByteReader(parameters, context: "Command Status event")
            opcode = Opcode(rawValue: try reader.readUInt16("Command_Opcode"))
            status = Status(rawValue: try reader.readUInt8("Status"))
            try reader.expectEnd()
        }

        public var parameters: [UInt8] {
            var writer = ByteWriter(capacity: 3)
            writer.write(opcode.rawValue)
            writer.write(status.rawValue)
            return writer.bytes
        }
    }
}
