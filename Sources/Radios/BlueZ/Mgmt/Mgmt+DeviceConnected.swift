import BLECore

extension Mgmt {
    /// Device Connected Event (mgmt-api.txt: event code 0x000B): Address (6), Address_Type (1), Flags (4),
    /// EIR_Data_Length (2), EIR_Data. Sent for every link of the adapter, whoever made it.
    public struct DeviceConnected: MgmtEvent {
        public static let code = EventCode.deviceConnected
        public var address: Address
        public var flags: UInt32
        public var eir: [UInt8]

        public init(address: Address, flags: UInt32 = 0, eir: [UInt8] = []) {
            self.address = address
            self.flags = flags
            self.eir = eir
        }

        public init(parameters: [UInt8]) throws(DecodingError) {
            var reader = ByteReader(parameters, context: "Device Connected event")
            address = try reader.readMgmtAddress()
            flags = try reader.readUInt32("Flags")
            let length = Int(try reader.readUInt16("EIR_Data_Length"))
            eir = try reader.readBytes(length, "EIR_Data")
            try reader.expectEnd()
        }

        public var parameters: [UInt8] {
            var writer = ByteWriter(capacity: 13 + eir.count)
            writer.write(address)
            writer.write(flags)
            writer.write(UInt16(eir.count))
            writer.write(contentsOf: eir)
            return writer.bytes
        }
    }
}
