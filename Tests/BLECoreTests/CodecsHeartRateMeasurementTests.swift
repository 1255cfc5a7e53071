import Testing

@testable import BLECore

@Suite("Heart Rate Measurement 0x2A37")
struct CodecsHeartRateMeasurementTests {
    /// One vector per flag bit, plus combinations (Heart Rate Service 1.0 §3.1).
    static let vectors: [(String, HeartRateMeasurement)] = [
        ("00 48", HeartRateMeasurement(beatsPerMinute: 72)),
        ("01 48 00", HeartRateMeasurement(beatsPerMinute: 72, valueFormat: .uint16)),
        ("01 2c 01", HeartRateMeasurement(beatsPerMinute: 300)),
        ("02 48", HeartRateMeasurement(beatsPerMinute: 72, sensorContact: .notSupportedAlternate)),
        ("04 48", HeartRateMeasurement(beatsPerMinute: 72, sensorContact: .notDetected)),
        ("06 48", HeartRateMeasurement(beatsPerMinute: 72, sensorContact: .detected)),
        ("08 48 0c 00", HeartRateMeasurement(beatsPerMinute: 72, energyExpended: 12)),
        ("10 48 20 03", HeartRateMeasurement(beatsPerMinute: 72, rrIntervals: [800])),
        ("10 48 20 03 2c 03", HeartRateMeasurement(beatsPerMinute: 72, rrIntervals: [800, 812])),
        (
            "1f 8c 00 ff ff 00 04 01 00",
            HeartRateMeasurement(
                beatsPerMinute: 140, valueFormat: .uint16, sensorContact: .detected, energyExpended: 0xFFFF,
                rrIntervals: [1024, 1])
        ),
    ]

    @Test(arguments: vectors)
    func decodesAndEncodesSpecVectors(hex: String, measurement: HeartRateMeasurement) throws {
        let bytes = try #require([UInt8](hex: hex))
        #expect(try HeartRateMeasurement(decoding: bytes) == measurement)
        #expect(measurement.encoded == bytes)
    }

    /// Every combination of the five defined flag bits, with the fields they announce.
    @Test(arguments: 0..<32)
    func everyFlagCombinationRoundTrips(flags: Int) throws {
        var bytes: [UInt8] = [UInt8(flags)]
        bytes += flags & 0x01 != 0 ? [0x96, 0x00] : [0x96]
        if flags & 0x08 != 0 { bytes += [0x34, 0x12] }
        if flags & 0x10 != 0 { bytes += [0x00, 0x03, 0xFF, 0x02] }
        let measurement = try HeartRateMeasurement(decoding: bytes)
        #expect(measurement.beatsPerMinute == 150)
        #expect(measurement.valueFormat == (flags & 0x01 != 0 ? .uint16 : .uint8))
        #expect(measurement.sensorContact.rawValue == UInt8(flags >> 1 & 0x03))
        #expect(measurement.energyExpended == (flags & 0x08 != 0 ? 0x1234 : nil))
        #expect(measurement.rrIntervals == (flags & 0x10 != 0 ? [0x0300, 0x02FF] : []))
        #expect(measurement.flags == UInt8(flags))
        #expect(measurement.encoded == bytes)
    }

    @Test func sensorContactBitsMeanWhatTheSpecSays() {
        #expect(!HeartRateMeasurement.SensorContact.notSupported.isSupported)
        #expect(!HeartRateMeasurement.SensorContact.notSupportedAlternate.isSupported)
        #expect(HeartRateMeasurement.SensorContact.notDetected.isSupported)
        #expect(!HeartRateMeasurement.SensorContact.notDetected.isDetected)
        #expect(HeartRateMeasurement.SensorContact.detected.isDetected)
        #expect(HeartRateMeasurement.SensorContact(rawValue: 4) == nil)
    }

    @Test func reservedFlagBitsAreIgnoredWhenDecodingAndWrittenAsZero() throws {
        let measurement = try HeartRateMeasurement(decoding: [0xE0, 0x48])
        #expect(measurement == HeartRateMeasurement(beatsPerMinute: 72))
        #expect(measurement.encoded == [0x00, 0x48])
    }

    @Test func valuesAboveTwoFiftyFiveAreWrittenAsU16EvenIfU8WasAskedFor() {
        let measurement = HeartRateMeasurement(beatsPerMinute: 256, valueFormat: .uint8)
        #expect(measurement.encoded == [0x01, 0x00, 0x01])
    }

    @Test func rrIntervalsConvertToExactDurations() {
        let measurement = HeartRateMeasurement(beatsPerMinute: 60, rrIntervals: [1024, 512, 1, 2048 + 256])
        #expect(
            measurement.rrIntervalDurations == [
                .seconds(1), .milliseconds(500),
                Duration(secondsComponent: 0, attosecondsComponent: 976_562_500_000_000),
                .milliseconds(2250),
            ])
    }

    /// (bytes, the error).
    static let malformed: [(String, DecodingError)] = [
        ("", .truncated(context: "Heart Rate Measurement", field: "flags", needed: 1, available: 0, at: 0)),
        ("00", .truncated(context: "Heart Rate Measurement", field: "heart rate (u8)", needed: 1, available: 0, at: 1)),
        (
            "01 48",
            .truncated(context: "Heart Rate Measurement", field: "heart rate (u16)", needed: 2, available: 1, at: 1)
        ),
        (
            "08 48 0c",
            .truncated(context: "Heart Rate Measurement", field: "energy expended", needed: 2, available: 1, at: 2)
        ),
        (
            "10 48",
            .truncated(
                context: "Heart Rate Measurement", field: "RR interval (flags bit 4 promises at least one)", needed: 2,
                available: 0, at: 2)
        ),
        (
            "10 48 20 03 2c",
            .truncated(context: "Heart Rate Measurement", field: "RR interval", needed: 2, available: 1, at: 4)
        ),
        ("00 48 00", .trailingBytes(context: "Heart Rate Measurement", count: 1, at: 2)),
        ("08 48 0c 00 01 02", .trailingBytes(context: "Heart Rate Measurement", count: 2, at: 4)),
    ]

    @Test(arguments: malformed)
    func malformedInputThrows(hex: String, error: DecodingError) throws {
        let bytes = try #require([UInt8](hex: hex))
        #expect(throws: error) { try HeartRateMeasurement(decoding: bytes) }
    }

    @Test func describesItself() {
        let measurement = HeartRateMeasurement(
            beatsPerMinute: 72, sensorContact: .detected, energyExpended: 12, rrIntervals: [800, 812])
        #expect(measurement.description == "72 bpm, contact detected, 12 kJ, RR [800, 812]/1024 s")
        #expect(HeartRateMeasurement.uuid == BluetoothUUID(0x2A37))
    }
}
