/// Battery Level 0x2A19 (Battery Service 1.1 §3.1; format in the GATT Specification Supplement): the charge as a
/// percentage, one unsigned byte 0–100. Values 101–255 are prohibited.
public struct BatteryLevel: CharacteristicCodec, Comparable, CustomStringConvertible {
    public static let uuid = BluetoothUUID(0x2A19)
    /// The Battery Service that holds this characteristic.
    public static let serviceUUID = BluetoothUUID(0x180F)

    /// 0–100.
    public let percent: UInt8

    /// Nil when `percent` exceeds 100.
    public init?(percent: UInt8) {
        guard percent <= 100 else { return nil }
        self.percent = percent
    }

    public init(decoding bytes: some Collection<UInt8>) throws(DecodingError) {
        var reader = ByteReader(bytes, context: "Battery Level")
        let value = try reader.readUInt8("level")
        try reader.expectEnd()
        guard value <= 100 else {
            throw .invalidValue(
                context: "Battery Level", field: "level",
                reason: "\(value) % is above 100 % (101–255 are prohibited)", at: 0)
        }
        percent = value
    }

    public var encoded: [UInt8] { [percent] }

    /// `87 %`.
    public var description: String { "\(percent) %" }

    public static func < (a: Self, b: Self) -> Bool { a.percent < b.percent }
}
