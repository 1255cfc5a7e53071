import Testing

@testable import BLECore

@Suite("BluetoothUUID")
struct IdentifiersBluetoothUUIDTests {
    static let deviceInformation = BluetoothUUID(0x180A)
    static let sensorService = BluetoothUUID("e5b10100-7c3a-4f0e-9d2b-5a1c3e7f9b20")!

    @Test func sixteenBitUUIDExpandsOnTheBluetoothBaseUUID() {
        let uuid = BluetoothUUID(0x180A)
        #expect(uuid.high == 0x0000_180A_0000_1000)
        #expect(uuid.low == 0x8000_0080_5F9B_34FB)
        #expect(uuid.isBaseAlias)
        #expect(uuid.uint16 == 0x180A)
        #expect(uuid.uint32 == 0x0000_180A)
        #expect(uuid.compactWidth == 2)
        #expect(uuid.narrowestWidth == .bits16)
    }

    @Test func thirtyTwoBitUUIDExpandsOnTheBluetoothBaseUUID() {
        let uuid = BluetoothUUID(uint32: 0x1234_5678)
        #expect(uuid.high == 0x1234_5678_0000_1000)
        #expect(uuid.low == 0x8000_0080_5F9B_34FB)
        #expect(uuid.uint16 == nil)
        #expect(uuid.uint32 == 0x1234_5678)
        #expect(uuid.compactWidth == 4)
        #expect(uuid.narrowestWidth == .bits32)
    }

    @Test func customUUIDHasNoShortAlias() {
        let uuid = Self.sensorService
        #expect(!uuid.isBaseAlias)
        #expect(uuid.uint16 == nil)
        #expect(uuid.uint32 == nil)
        #expect(uuid.compactWidth == 16)
        #expect(uuid.narrowestWidth == .bits128)
        #expect(!uuid.fits(.bits16) && !uuid.fits(.bits32) && uuid.fits(.bits128))
    }

    @Test func equalityHoldsAcrossWidths() {
        let full = BluetoothUUID(high: 0x0000_180A_0000_1000, low: 0x8000_0080_5F9B_34FB)
        #expect(BluetoothUUID(0x180A) == BluetoothUUID(uint32: 0x180A))
        #expect(BluetoothUUID(0x180A) == full)
        #expect(Set([BluetoothUUID(0x180A), BluetoothUUID(uint32: 0x180A), full]).count == 1)
        #expect(BluetoothUUID(0x180A) != BluetoothUUID(0x180B))
    }

    @Test(arguments: [
        ("180A", BluetoothUUID(0x180A)),
        ("180a", BluetoothUUID(0x180A)),
        ("0x180a", BluetoothUUID(0x180A)),
        ("0X180A", BluetoothUUID(0x180A)),
        (" 2A37 ", BluetoothUUID(0x2A37)),
        ("0000180A", BluetoothUUID(0x180A)),
        ("12345678", BluetoothUUID(uint32: 0x1234_5678)),
        ("0000180A-0000-1000-8000-00805F9B34FB", BluetoothUUID(0x180A)),
        ("0000180a00001000800000805f9b34fb", BluetoothUUID(0x180A)),
        ("e5b10100-7c3a-4f0e-9d2b-5a1c3e7f9b20", sensorService),
        ("E5B101007C3A4F0E9D2B5A1C3E7F9B20", sensorService),
    ])
    func parsesEveryAcceptedSpelling(text: String, expected: BluetoothUUID) {
        #expect(BluetoothUUID(text) == expected)
    }

    @Test(arguments: [
        "", "18A", "180AB", "0x", "xyz1", "180G", "+18A", "-18A", "１８０Ａ", "0x0x180A",
        "e5b10100-7c3a-4f0e-9d2b-5a1c3e7f9b2", "e5b10100-7c3a-4f0e-9d2b-5a1c3e7f9b200",
        "e5b101007-c3a-4f0e-9d2b-5a1c3e7f9b20", "e5b10100-7c3a-4f0e-9d2b+5a1c3e7f9b20",
        "e5b10100-7c3a-4f0e-9d2b-5a1c3e7f9bzz", "1234-5678",
    ])
    func rejectsJunk(text: String) {
        #expect(BluetoothUUID(text) == nil)
    }

    @Test(arguments: [
        (BluetoothUUID(0x180A), "180A"),
        (BluetoothUUID(0x2A37), "2A37"),
        (BluetoothUUID(uint32: 0x1234_5678), "12345678"),
        (sensorService, "e5b10100-7c3a-4f0e-9d2b-5a1c3e7f9b20"),
    ])
    func printsShortestFormAndParsesBack(uuid: BluetoothUUID, text: String) {
        #expect(uuid.description == text)
        #expect(BluetoothUUID(uuid.description) == uuid)
    }

    @Test func wireBytesAtEachWidthAreLittleEndian() {
        let uuid = BluetoothUUID(0x180A)
        #expect(uuid.littleEndianBytes(width: 2) == [0x0A, 0x18])
        #expect(uuid.littleEndianBytes(width: .bits32) == [0x0A, 0x18, 0x00, 0x00])
        #expect(
            uuid.littleEndianBytes(width: 16)
                == [0xFB, 0x34, 0x9B, 0x5F, 0x80, 0x00, 0x00, 0x80, 0x00, 0x10, 0x00, 0x00, 0x0A, 0x18, 0x00, 0x00])
        #expect(uuid.littleEndianBytes(width: 3) == nil)
        #expect(uuid.attBytes == [0x0A, 0x18])
    }

    @Test func customUUIDWireBytesAreTheReversedBigEndianForm() {
        let uuid = Self.sensorService
        #expect(uuid.bigEndianBytes == [UInt8](hex: "e5b101007c3a4f0e9d2b5a1c3e7f9b20"))
        #expect(uuid.littleEndianBytes(width: 16) == [UInt8](hex: "209b7f3e1c5a2b9d0e4f3a7c0001b1e5"))
        #expect(uuid.littleEndianBytes(width: 2) == nil)
        #expect(uuid.littleEndianBytes(width: .bits32) == nil)
        #expect(uuid.attBytes.count == 16)
        #expect(BluetoothUUID(uint32: 0x1234_5678).attBytes.count == 16)
    }

    @Test(
        arguments: [
            ([0x0A, 0x18], BluetoothUUID(0x180A)),
            ([0x78, 0x56, 0x34, 0x12], BluetoothUUID(uint32: 0x1234_5678)),
            ([0x0A, 0x18, 0x00, 0x00], BluetoothUUID(0x180A)),
            ([UInt8](hex: "209b7f3e1c5a2b9d0e4f3a7c0001b1e5")!, sensorService),
        ] as [([UInt8], BluetoothUUID)])
    func decodesLittleEndianAtEachWidth(bytes: [UInt8], expected: BluetoothUUID) throws {
        #expect(try BluetoothUUID(littleEndian: bytes) == expected)
        #expect(try BluetoothUUID(littleEndian: ArraySlice([0xEE] + bytes).dropFirst()) == expected)
    }

    @Test(arguments: [0, 1, 3, 5, 15, 17])
    func rejectsLittleEndianBytesOfAnyOtherLength(count: Int) {
        #expect(throws: DecodingError.self) { try BluetoothUUID(littleEndian: [UInt8](repeating: 1, count: count)) }
    }

    @Test func readsAUUIDOfAGivenWidthFromAReader() throws {
        var reader = ByteReader([0x0F, 0x18, 0xAA], context: "test")
        #expect(try BluetoothUUID(from: &reader, width: .bits16) == BluetoothUUID(0x180F))
        #expect(throws: DecodingError.truncated(context: "test", field: "UUID", needed: 2, available: 1, at: 2)) {
            try BluetoothUUID(from: &reader, width: .bits16)
        }
    }

    @Test func ordersByThe128BitValue() {
        #expect(BluetoothUUID(0x180A) < BluetoothUUID(0x180F))
        #expect(
            [BluetoothUUID(0x2A37), BluetoothUUID(0x180D)].sorted() == [BluetoothUUID(0x180D), BluetoothUUID(0x2A37)])
    }
}
