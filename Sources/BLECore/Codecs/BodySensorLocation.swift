/// Body Sensor Location 0x2A38 (Heart Rate Service 1.0 §3.2): where a heart
/// rate sensor is worn, one byte. 7–255 are reserved for future use and rejected by the decoder.
public struct BodySensorLocation: RawRepresentable, CharacteristicCodec, CaseIterable, CustomStringConvertible {
    public static let uuid = BluetoothUUID(0x2A38)

    public let rawValue: UInt8
    /// Nil for the reserved values 7–255.
    public init?(rawValue: UInt8) {
        guard rawValue <= 6 else { return nil }
        self.rawValue = rawValue
    }

    private init(_ value: UInt8) { rawValue = value }

    public static let other = Self(0)
    public static let chest = Self(1)
    public static let wrist = Self(2)
    public static let finger = Self(3)
    public static let hand = Self(4)
    public static let earLobe = Self(5)
    public static let foot = Self(6)

    public static let allCases: [Self] = [.other, .chest, .wrist, .finger, .hand, .earLobe, .foot]

    public init(decoding bytes: some Collection<UInt8>) throws(DecodingError) {
        var reader = ByteReader(bytes, context: "Body Sensor Location")
        let value = try reader.readUInt8("location")
        try reader.expectEnd()
        guard let location = Self(rawValue: value) else {
            throw .invalidValue(
                context: "Body Sensor Location", field: "location",
                reason: "\(value) is reserved for future use (defined: 0–6)", at: 0)
        }
        self = location
    }

    public var encoded: [UInt8] { [rawValue] }

    public var name: String {
        ["Other", "Chest", "Wrist", "Finger", "Hand", "Ear Lobe", "Foot"][Int(rawValue)]
    }

    /// `Chest`.
    public var description: String { name }
}
