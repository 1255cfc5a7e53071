import Testing

@testable import BLECore

/// Malformed advertising data throws a ``DecodingError`` that names the AD type and the offset.
@Suite("AdvertisingData malformed input")
struct AdvertisingDataMalformedTests {
    /// (bytes, field named in the error, offset reported).
    static let invalidValues: [(String, String, Int)] = [
        ("04 03 0d 18 0f", "0x03 (Complete List of 16-bit Service UUIDs) length", 0),
        ("02 02 0d", "0x02 (Incomplete List of 16-bit Service UUIDs) length", 0),
        ("04 05 01 02 03", "0x05 (Complete List of 32-bit Service UUIDs) length", 0),
        ("06 04 01 02 03 04 05", "0x04 (Incomplete List of 32-bit Service UUIDs) length", 0),
        ("10 07 " + String(repeating: "aa ", count: 15), "0x07 (Complete List of 128-bit Service UUIDs) length", 0),
        ("12 06 " + String(repeating: "aa ", count: 17), "0x06 (Incomplete List of 128-bit Service UUIDs) length", 0),
        ("01 0a", "0x0A (Tx Power Level) length", 0),
        ("03 0a 01 02", "0x0A (Tx Power Level) length", 0),
        ("02 19 41", "0x19 (Appearance) length", 0),
        ("04 19 41 03 00", "0x19 (Appearance) length", 0),
        ("02 ff ff", "0xFF (Manufacturer Specific Data) length", 0),
        ("01 ff", "0xFF (Manufacturer Specific Data) length", 0),
        ("02 16 0f", "0x16 (Service Data - 16-bit UUID) length", 0),
        ("04 20 01 02 03", "0x20 (Service Data - 32-bit UUID) length", 0),
        ("10 21 " + String(repeating: "aa ", count: 15), "0x21 (Service Data - 128-bit UUID) length", 0),
        ("02 01 06 04 03 0d 18 0f", "0x03 (Complete List of 16-bit Service UUIDs) length", 3),
        ("03 09 c3 28", "0x09 (Complete Local Name)", 2),
        ("05 08 41 42 c0 80", "0x08 (Shortened Local Name)", 4),
        ("05 09 41 ed a0 80", "0x09 (Complete Local Name)", 3),
        ("05 09 f4 90 80 80", "0x09 (Complete Local Name)", 2),
        ("02 09 ff", "0x09 (Complete Local Name)", 2),
        ("02 09 80", "0x09 (Complete Local Name)", 2),
        ("03 09 41 e2", "0x09 (Complete Local Name)", 3),
        ("02 01 06 00 01", "padding", 4),
        ("00 00 00 07", "padding", 3),
    ]

    @Test(arguments: invalidValues)
    func rejectsInvalidLengthsAndValues(hex: String, field: String, offset: Int) throws {
        let bytes = try #require([UInt8](hex: hex))
        let error = try #require(throws: DecodingError.self) { try AdvertisingData(decoding: bytes) }
        guard case let .invalidValue(context, actualField, _, at) = error else {
            Issue.record("expected an invalid value, got \(error)")
            return
        }
        #expect(context == "advertising data")
        #expect(actualField == field)
        #expect(at == offset)
    }

    /// (bytes, truncated field, bytes needed, bytes available, offset).
    static let truncations: [(String, String, Int, Int, Int)] = [
        ("05 09 41 42", "0x09 (Complete Local Name) data of the structure at byte 0", 4, 2, 2),
        ("02", "AD type of the structure at byte 0", 1, 0, 1),
        ("02 01 06 03 03 0d", "0x03 (Complete List of 16-bit Service UUIDs) data of the structure at byte 3", 2, 1, 5),
        ("ff ff 01 02", "0xFF (Manufacturer Specific Data) data of the structure at byte 0", 254, 2, 2),
        ("02 01 06 1f", "AD type of the structure at byte 3", 1, 0, 4),
    ]

    @Test(arguments: truncations)
    func rejectsLengthsRunningPastTheEnd(hex: String, field: String, needed: Int, available: Int, offset: Int) throws {
        let bytes = try #require([UInt8](hex: hex))
        #expect(
            throws: DecodingError.truncated(
                context: "advertising data", field: field, needed: needed, available: available, at: offset)
        ) { try AdvertisingData(decoding: bytes) }
    }

    @Test func errorMessageNamesTypeAndOffset() throws {
        let error = try #require(throws: DecodingError.self) {
            try AdvertisingData(decoding: [UInt8](hex: "02 01 06 02 0a 01 01 19")!)
        }
        #expect(
            error.description
                == "advertising data: invalid 0x19 (Appearance) length at byte 6: 0 data byte(s); Appearance has 2")
    }
}
