import Testing

@testable import BLECore

@Suite("Battery Level 0x2A19 and Body Sensor Location 0x2A38")
struct CodecsBatteryAndBodySensorTests {
    @Test(arguments: [0, 1, 57, 99, 100] as [UInt8])
    func batteryLevelZeroToHundredRoundTrips(percent: UInt8) throws {
        let level = try BatteryLevel(decoding: [percent])
        #expect(level.percent == percent)
        #expect(level.encoded == [percent])
        #expect(BatteryLevel(percent: percent) == level)
    }

    @Test(arguments: [101, 200, 255] as [UInt8])
    func batteryLevelAboveHundredIsAnError(percent: UInt8) {
        #expect(BatteryLevel(percent: percent) == nil)
        #expect(throws: DecodingError.self) { try BatteryLevel(decoding: [percent]) }
    }

    @Test func batteryLevelMustBeExactlyOneByte() {
        #expect(
            throws: DecodingError.truncated(context: "Battery Level", field: "level", needed: 1, available: 0, at: 0)
        ) {
            try BatteryLevel(decoding: [])
        }
        #expect(throws: DecodingError.trailingBytes(context: "Battery Level", count: 1, at: 1)) {
            try BatteryLevel(decoding: [50, 0])
        }
    }

    @Test func batteryLevelErrorSaysWhatIsWrong() {
        let error = #expect(throws: DecodingError.self) { try BatteryLevel(decoding: [0xC8]) }
        #expect(
            error?.description
                == "Battery Level: invalid level at byte 0: 200 % is above 100 % (101–255 are prohibited)")
    }

    @Test(
        arguments: [
            (0, BodySensorLocation.other, "Other"), (1, .chest, "Chest"), (2, .wrist, "Wrist"), (3, .finger, "Finger"),
            (4, .hand, "Hand"), (5, .earLobe, "Ear Lobe"), (6, .foot, "Foot"),
        ] as [(UInt8, BodySensorLocation, String)])
    func bodySensorLocationNamedValuesRoundTrip(raw: UInt8, location: BodySensorLocation, name: String) throws {
        #expect(try BodySensorLocation(decoding: [raw]) == location)
        #expect(location.encoded == [raw])
        #expect(location.description == name)
    }

    @Test(arguments: [7, 0x80, 0xFF] as [UInt8])
    func bodySensorLocationReservedValuesAreErrors(raw: UInt8) {
        #expect(BodySensorLocation(rawValue: raw) == nil)
        #expect(throws: DecodingError.self) { try BodySensorLocation(decoding: [raw]) }
    }

    @Test func bodySensorLocationMustBeExactlyOneByte() {
        #expect(throws: DecodingError.self) { try BodySensorLocation(decoding: []) }
        #expect(throws: DecodingError.trailingBytes(context: "Body Sensor Location", count: 1, at: 1)) {
            try BodySensorLocation(decoding: [1, 1])
        }
    }

    @Test func codecsNameTheirCharacteristics() {
        #expect(BatteryLevel.uuid == BluetoothUUID(0x2A19))
        #expect(BodySensorLocation.uuid == BluetoothUUID(0x2A38))
        #expect(BodySensorLocation.allCases.count == 7)
    }
}
