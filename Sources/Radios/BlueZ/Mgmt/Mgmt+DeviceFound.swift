import BLECore

extension Mgmt {
    /// Device Found Event (mgmt-api.txt: event code 0x0012): Address (6), Address_Type (1), RSSI (1, signed dBm,
    /// 127 when unknown), Flags (4), EIR_Data_Length (2), EIR_Data. For LE, EIR_Data is the advertising data and,
    /// on a controller scanning with legacy reports, the scan response merged in by the kernel; with extended
    /// reports (Linux 6.1 on a Bluetooth 5 controller) the scan response comes alone, flagged ``Flags/scanResponse``.
    public struct DeviceFound: MgmtEvent {
        public static let code = EventCode.deviceFound

        /// Flag bits: 0 confirm name, 1 legacy pairing, 2 not connectable, 3 initiated connection, 4 name request
        /// failed, 5 scan response.
        public struct Flags: OptionSet, Hashable, Sendable {
            public let rawValue: UInt32
            public init(rawValue: UInt32) { self.rawValue = rawValue }
            public static let notConnectable = Self(rawValue: 1 << 2)
            public static let scanResponse = Self(rawValue: 1 << 5)
        }

        public var address: Address
        public var rssi: Int8
        public var flags: Flags
        public var eir: [UInt8]

        public init(address: Address, rssi: Int8, flags: Flags = [], eir: [UInt8]) {
            self.address = address
            self.rssi = rssi
            self.flags = flags
            self.eir = eir
        }

        public init(parameters: [UInt8]) throws(DecodingError) {
            var reader = ByteReader(parameters, context: "Device Found event")
            address = try reader.readMgmtAddress()
            rssi = try reader.readInt8("RSSI")
            flags = Flags(rawValue: try reader.readUInt32("Flags"))
            let length = Int(try reader.readUInt16("EIR_Data_Length"))
            eir = try reader.readBytes(length, "EIR_Data")
            try reader.expectEnd()
        }

        public var parameters: [UInt8] {
            var writer = ByteWriter(capacity: 14 + eir.count)
            writer.write(address)
            writer.write(rssi)
            writer.write(flags.rawValue)
            writer.write(UInt16(eir.count))
            writer.write(contentsOf: eir)
            return writer.bytes
        }

        public var connectable: Bool { !flags.contains(.notConnectable) }
    }
}
