import BLECore

extension Mgmt {
    /// Load Connection Parameters Command (mgmt-api.txt: opcode 0x0035): Param_Count (2 octets), then per device
    /// Address (6), Address_Type (1), Min_Connection_Interval (2), Max_Connection_Interval (2),
    /// Connection_Latency (2), Supervision_Timeout (2). Intervals in units of 1.25 ms, the timeout in 10 ms. The
    /// kernel uses them for its next connections to those devices instead of its defaults (30–50 ms, 420 ms).
    public struct LoadConnectionParameters: MgmtCommand {
        public static let opcode = Opcode.loadConnectionParameters

        public struct Entry: Hashable, Sendable {
            public var address: Address
            public var minInterval: UInt16
            public var maxInterval: UInt16
            public var latency: UInt16
            public var supervisionTimeout: UInt16

            public init(
                address: Address, minInterval: UInt16, maxInterval: UInt16, latency: UInt16,
                supervisionTimeout: UInt16
            ) {
                self.address = address
                self.minInterval = minInterval
                self.maxInterval = maxInterval
                self.latency = latency
                self.supervisionTimeout = supervisionTimeout
            }

            /// The entry for `address` with blerig's connection parameters.
            public init(_ address: DeviceAddress, _ parameters: HCI.ConnectionParameters) {
                self.init(
                    address: Address(address), minInterval: parameters.intervalMin, maxInterval: parameters.intervalMax,
                    latency: parameters.latency, supervisionTimeout: parameters.supervisionTimeout)
            }
        }

        public var entries: [Entry]
        public init(_ entries: [Entry]) { self.entries = entries }

        public init(parameters: [UInt8]) throws(DecodingError) {
            var reader = ByteReader(parameters, context: "Load Connection Parameters")
            let count = Int(try reader.readUInt16("Param_Count"))
            entries = []
            for _ in 0..<count {
                entries.append(
                    Entry(
                        address: try reader.readMgmtAddress(),
                        minInterval: try reader.readUInt16("Min_Connection_Interval"),
                        maxInterval: try reader.readUInt16("Max_Connection_Interval"),
                        latency: try reader.readUInt16("Connection_Latency"),
                        supervisionTimeout: try reader.readUInt16("Supervision_Timeout")))
            }
            try reader.expectEnd()
        }

        public var parameters: [UInt8] {
            var writer = ByteWriter(capacity: 2 + 15 * entries.count)
            writer.write(UInt16(entries.count))
            for entry in entries {
                writer.write(entry.address)
                writer.write(entry.minInterval)
                writer.write(entry.maxInterval)
                writer.write(entry.latency)
                writer.write(entry.supervisionTimeout)
            }
            return writer.bytes
        }

        public typealias Reply = NoParameters
    }
}
