/// Heart Rate Measurement 0x2A37 (Heart Rate Service 1.0 §3.1): a flags byte, then the heart rate (u8 or u16),
/// the energy expended (u16 kJ) and RR intervals (u16 each, in 1/1024 s), each present as the flags say.
///
/// Flags: bit 0 value format (0 u8, 1 u16); bits 1–2 sensor contact status; bit 3 energy expended present;
/// bit 4 RR intervals present; bits 5–7 reserved for future use, ignored when decoding and written as zero.
public struct HeartRateMeasurement: CharacteristicCodec, CustomStringConvertible {
    public static let uuid = BluetoothUUID(0x2A37)
    /// The Heart Rate Service that holds this characteristic.
    public static let serviceUUID = BluetoothUUID(0x180D)

    /// The width of the heart rate field (flags bit 0).
    public enum ValueFormat: UInt8, Hashable, Sendable {
        case uint8 = 0
        case uint16 = 1
    }

    /// The heart rate in beats per minute.
    public var beatsPerMinute: UInt16
    /// The width to write the heart rate in. ``encoded`` uses u16 when the value does not fit a u8.
    public var valueFormat: ValueFormat
    /// Flags bits 1–2.
    public var sensorContact: SensorContact
    /// Energy expended since the last reset, in kilojoules (0xFFFF: at least 65535 kJ).
    public var energyExpended: UInt16?
    /// RR intervals in units of 1/1024 s, oldest first; written (with flags bit 4) only when not empty.
    public var rrIntervals: [UInt16]

    /// `valueFormat` nil picks the narrowest format that holds `beatsPerMinute`.
    public init(
        beatsPerMinute: UInt16, valueFormat: ValueFormat? = nil, sensorContact: SensorContact = .notSupported,
        energyExpended: UInt16? = nil, rrIntervals: [UInt16] = []
    ) {
        self.beatsPerMinute = beatsPerMinute
        self.valueFormat = valueFormat ?? (beatsPerMinute > UInt8.max ? .uint16 : .uint8)
        self.sensorContact = sensorContact
        self.energyExpended = energyExpended
        self.rrIntervals = rrIntervals
    }

    /// The RR intervals as durations (exact: 1/1024 s is a whole number of attoseconds).
    public var rrIntervalDurations: [Duration] {
        rrIntervals.map {
            Duration(secondsComponent: Int64($0 / 1024), attosecondsComponent: Int64($0 % 1024) * 976_562_500_000_000)
        }
    }

    /// The flags byte ``encoded`` writes.
    public var flags: UInt8 {
        var flags: UInt8 = 0
        if valueFormat == .uint16 || beatsPerMinute > UInt8.max { flags |= 0x01 }
        flags |= sensorContact.rawValue << 1
        if energyExpended != nil { flags |= 0x08 }
        if !rrIntervals.isEmpty { flags |= 0x10 }
        return flags
    }

    public init(decoding bytes: some Collection<UInt8>) throws(DecodingError) {
        var reader = ByteReader(bytes, context: "Heart Rate Measurement")
        let flags = try reader.readUInt8("flags")
        if flags & 0x01 != 0 {
            valueFormat = .uint16
            beatsPerMinute = try reader.readUInt16("heart rate (u16)")
        } else {
            valueFormat = .uint8
            beatsPerMinute = UInt16(try reader.readUInt8("heart rate (u8)"))
        }
        sensorContact = SensorContact(rawValue: (flags >> 1) & 0x03)!
        energyExpended = flags & 0x08 != 0 ? try reader.readUInt16("energy expended") : nil
        rrIntervals = []
        if flags & 0x10 != 0 {
            guard !reader.isAtEnd else {
                throw .truncated(
                    context: reader.context, field: "RR interval (flags bit 4 promises at least one)", needed: 2,
                    available: 0, at: reader.position)
            }
            while !reader.isAtEnd { rrIntervals.append(try reader.readUInt16("RR interval")) }
        }
        try reader.expectEnd()
    }

    public var encoded: [UInt8] {
        var writer = ByteWriter(capacity: 4 + 2 * rrIntervals.count)
        let flags = flags
        writer.write(flags)
        if flags & 0x01 != 0 { writer.write(beatsPerMinute) } else { writer.write(UInt8(beatsPerMinute)) }
        if let energyExpended { writer.write(energyExpended) }
        for interval in rrIntervals { writer.write(interval) }
        return writer.bytes
    }

    /// `72 bpm, contact detected, 12 kJ, RR [800, 812]/1024 s`.
    public var description: String {
        var parts = ["\(beatsPerMinute) bpm", "contact \(sensorContact)"]
        if let energyExpended { parts.append("\(energyExpended) kJ") }
        if !rrIntervals.isEmpty { parts.append("RR \(rrIntervals)/1024 s") }
        return parts.joined(separator: ", ")
    }
}

extension HeartRateMeasurement {
    /// Sensor Contact Status, flags bits 1–2 (Heart Rate Service 1.0 §3.1.1.2): 0 and 1 both mean the feature is
    /// not supported, 2 supported but no skin contact, 3 supported and in contact.
    public struct SensorContact: RawRepresentable, Hashable, Sendable, CaseIterable, CustomStringConvertible {
        public let rawValue: UInt8
        /// Nil above 3 (the field has two bits).
        public init?(rawValue: UInt8) {
            guard rawValue <= 3 else { return nil }
            self.rawValue = rawValue
        }

        private init(_ value: UInt8) { rawValue = value }

        public static let notSupported = Self(0)
        /// The other encoding of "not supported" (bit 1 set, bit 2 clear); kept so that decoding round-trips.
        public static let notSupportedAlternate = Self(1)
        public static let notDetected = Self(2)
        public static let detected = Self(3)

        public static let allCases: [Self] = [.notSupported, .notSupportedAlternate, .notDetected, .detected]

        /// Bit 2: the sensor reports contact at all.
        public var isSupported: Bool { rawValue & 0x02 != 0 }
        /// Supported and in contact.
        public var isDetected: Bool { rawValue == 3 }

        public var description: String { isSupported ? (isDetected ? "detected" : "not detected") : "not supported" }
    }
}
