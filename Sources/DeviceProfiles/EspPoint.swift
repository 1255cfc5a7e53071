import BLECore

/// `esp-point`, the ESP32 sensor node of the ESP-Point case study (docs/board-contract.md, "esp-point").
public enum EspPoint {
    /// The sample interval a board starts with, in seconds (the contract's SET_INTERVAL default).
    public static let defaultSampleInterval: UInt32 = 3600
    public static let sensorService = Profile.custom(0x0100)
    public static let reading = Profile.custom(0x0101)
    public static let logControl = Profile.custom(0x0102)
    public static let logData = Profile.custom(0x0103)
    public static let commandService = Profile.custom(0x0200)
    public static let command = Profile.custom(0x0201)
    public static let commandStatus = Profile.custom(0x0202)
    public static let auth = Profile.custom(0x0203)
    public static let otaService = Profile.custom(0x0300)
    public static let otaControl = Profile.custom(0x0301)
    public static let otaData = Profile.custom(0x0302)

    /// The company identifier of the manufacturer data (0xFFFF, reserved for tests).
    public static let companyIdentifier = CompanyIdentifier(rawValue: 0xFFFF)

    public static let modelNumber = "esp-point"

    /// `ESP-Point-XXXX`, XXXX the last two address bytes in hex.
    public static func advertisedName(for address: DeviceAddress) -> String {
        let tail = address.bytes.suffix(2).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
        return "ESP-Point-\(tail)"
    }

    /// The manufacturer data: `fw major u8, minor u8, patch u16, status flags u8`.
    public struct ManufacturerStatus: Hashable, Sendable {
        public var firmware: FirmwareVersion
        public var flags: Flags

        public struct Flags: OptionSet, Hashable, Sendable {
            public let rawValue: UInt8
            public init(rawValue: UInt8) { self.rawValue = rawValue }
            public static let backlogPresent = Self(rawValue: 0x01)
            public static let pairingMode = Self(rawValue: 0x02)
            public static let otaSessionPending = Self(rawValue: 0x04)
        }

        public init(firmware: FirmwareVersion, flags: Flags) {
            self.firmware = firmware
            self.flags = flags
        }

        public var encoded: [UInt8] {
            var w = ByteWriter(capacity: 5)
            w.write(firmware.major)
            w.write(firmware.minor)
            w.write(firmware.patch)
            w.write(flags.rawValue)
            return w.bytes
        }

        public init(decoding bytes: [UInt8]) throws(DecodingError) {
            var r = ByteReader(bytes, context: "esp-point manufacturer data")
            let major = try r.readUInt8("fw major"), minor = try r.readUInt8("fw minor")
            let patch = try r.readUInt16("fw patch")
            flags = Flags(rawValue: try r.readUInt8("status flags"))
            try r.expectEnd()
            firmware = FirmwareVersion(major, minor, patch)
        }
    }

    /// One sample: `seq u32 | unix_time u32 | temperature i16 (0.01 °C) | humidity u16 (0.01 %) | battery u16 (mV)`.
    public struct Reading: Hashable, Sendable {
        public static let size = 14
        public var sequence: UInt32
        public var unixTime: UInt32
        /// Hundredths of a degree Celsius.
        public var temperature: Int16
        /// Hundredths of a percent relative humidity.
        public var humidity: UInt16
        /// Battery voltage in millivolts.
        public var batteryMillivolts: UInt16

        public init(sequence: UInt32, unixTime: UInt32, temperature: Int16, humidity: UInt16, batteryMillivolts: UInt16) {
            self.sequence = sequence
            self.unixTime = unixTime
            self.temperature = temperature
            self.humidity = humidity
            self.batteryMillivolts = batteryMillivolts
        }

        public func encode(into w: inout ByteWriter) {
            w.write(sequence)
            w.write(unixTime)
            w.write(temperature)
            w.write(humidity)
            w.write(batteryMillivolts)
        }

        public var encoded: [UInt8] {
            var w = ByteWriter(capacity: Self.size)
            encode(into: &w)
            return w.bytes
        }

        public init(from r: inout ByteReader) throws(DecodingError) {
            sequence = try r.readUInt32("seq")
            unixTime = try r.readUInt32("unix_time")
            temperature = try r.readInt16("temperature")
            humidity = try r.readUInt16("humidity")
            batteryMillivolts = try r.readUInt16("battery")
        }

        public init(decoding bytes: [UInt8]) throws(DecodingError) {
            var r = ByteReader(bytes, context: "esp-point Reading")
            try self.init(from: &r)
            try r.expectEnd()
        }
    }
}
