import BLECore

extension Mgmt {
    /// Set Powered Command (mgmt-api.txt: opcode 0x0005): Powered (1 octet, 0x00 off, 0x01 on). Powering off ends
    /// every link of the adapter; returns the Current_Settings.
    public struct SetPowered: MgmtCommand {
        public static let opcode = Opcode.setPowered
        public var on: Bool
        public init(_ on: Bool) { self.on = on }

        public init(parameters: [UInt8]) throws(DecodingError) {
            var reader = ByteReader(parameters, context: "Set Powered")
            let value = try reader.readUInt8("Powered")
            guard value <= 1 else {
                throw .invalidValue(context: "Set Powered", field: "Powered", reason: "must be 0 or 1", at: 0)
            }
            on = value == 1
            try reader.expectEnd()
        }

        public var parameters: [UInt8] { [on ? 1 : 0] }

        public typealias Reply = CurrentSettings
    }

    /// Return parameters of the commands that change settings: Current_Settings (4 octets). Also the New Settings
    /// event's parameters.
    public struct CurrentSettings: MgmtParameters {
        public var settings: Settings
        public init(_ settings: Settings) { self.settings = settings }

        public init(parameters: [UInt8]) throws(DecodingError) {
            var reader = ByteReader(parameters, context: "Current_Settings")
            settings = Settings(rawValue: try reader.readUInt32("Current_Settings"))
            try reader.expectEnd()
        }

        public var parameters: [UInt8] {
            var writer = ByteWriter(capacity: 4)
            writer.write(settings.rawValue)
            return writer.bytes
        }
    }
}
