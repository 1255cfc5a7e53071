import Testing

@testable import BLECore

@Suite("ByteReader and ByteWriter")
struct BytesReaderWriterTests {
    @Test func writesAndReadsEveryWidthLittleEndian() throws {
        var writer = ByteWriter()
        writer.write(UInt8(0x01))
        writer.write(Int8(-2))
        writer.write(UInt16(0x0304))
        writer.write(Int16(-3))
        writer.writeUInt24(0x05_0607)
        writer.write(UInt32(0x0809_0A0B))
        writer.write(Int32(-4))
        writer.write(UInt64(0x0C0D_0E0F_1011_1213))
        writer.write(Int64(-5))
        writer.write(contentsOf: [0xAA, 0xBB])
        #expect(
            writer.bytes
                == [UInt8](
                    hex: "01 fe 0403 fdff 070605 0b0a0908 fcffffff 131211100f0e0d0c fbffffffffffffff aabb"))

        var reader = ByteReader(writer.bytes, context: "test")
        #expect(try reader.readUInt8() == 0x01)
        #expect(try reader.readInt8() == -2)
        #expect(try reader.readUInt16() == 0x0304)
        #expect(try reader.readInt16() == -3)
        #expect(try reader.readUInt24() == 0x05_0607)
        #expect(try reader.readUInt32() == 0x0809_0A0B)
        #expect(try reader.readInt32() == -4)
        #expect(try reader.readUInt64() == 0x0C0D_0E0F_1011_1213)
        #expect(try reader.readInt64() == -5)
        #expect(try reader.readBytes(1) == [0xAA])
        #expect(reader.readRemaining() == [0xBB])
        #expect(reader.isAtEnd)
        try reader.expectEnd()
    }

    @Test func writesAndReadsBigEndian() throws {
        var writer = ByteWriter()
        writer.writeBigEndian(UInt16(0x0102))
        writer.writeBigEndian(UInt32(0x0304_0506))
        writer.writeBigEndian(Int64(-2))
        #expect(writer.bytes == [UInt8](hex: "0102 03040506 fffffffffffffffe"))
        var reader = ByteReader(writer.bytes, context: "test")
        #expect(try reader.readBigEndian(UInt16.self, "a") == 0x0102)
        #expect(try reader.readBigEndian(UInt32.self, "b") == 0x0304_0506)
        #expect(try reader.readBigEndian(Int64.self, "c") == -2)
        #expect(reader.isAtEnd)
    }

    @Test(arguments: [
        (1, "u16", 2), (2, "u24", 3), (3, "u32", 4), (7, "u64", 8), (1, "i16", 2), (3, "i32", 4), (7, "i64", 8),
        (0, "u8", 1), (0, "i8", 1),
    ])
    func truncationNamesTheFieldAndTheOffset(available: Int, width: String, needed: Int) {
        var reader = ByteReader([0x99] + [UInt8](repeating: 0, count: available), context: "Widget")
        _ = try? reader.readUInt8()
        let expected = DecodingError.truncated(
            context: "Widget", field: "the \(width)", needed: needed, available: available, at: 1)
        #expect(throws: expected) {
            let field = "the \(width)"
            switch width {
            case "u8": _ = try reader.readUInt8(field)
            case "i8": _ = try reader.readInt8(field)
            case "u16": _ = try reader.readUInt16(field)
            case "i16": _ = try reader.readInt16(field)
            case "u24": _ = try reader.readUInt24(field)
            case "u32": _ = try reader.readUInt32(field)
            case "i32": _ = try reader.readInt32(field)
            case "u64": _ = try reader.readUInt64(field)
            default: _ = try reader.readInt64(field)
            }
        }
        #expect(reader.position == 1, "a failed read consumes nothing")
    }

    @Test func truncatedByteRunNamesTheField() {
        var reader = ByteReader([1, 2, 3], context: "Frame")
        #expect(throws: DecodingError.truncated(context: "Frame", field: "payload", needed: 5, available: 3, at: 0)) {
            try reader.readBytes(5, "payload")
        }
        #expect(throws: DecodingError.truncated(context: "Frame", field: "length", needed: -1, available: 3, at: 0)) {
            try reader.readBytes(-1, "length")
        }
    }

    @Test func trailingBytesAreReportedWithTheirOffset() throws {
        var reader = ByteReader([1, 2, 3], context: "Frame")
        _ = try reader.readUInt8()
        #expect(throws: DecodingError.trailingBytes(context: "Frame", count: 2, at: 1)) { try reader.expectEnd() }
    }

    @Test func offsetsCountFromTheStartOfASlice() throws {
        let slice = ([0xFF, 0xFF, 0x01, 0x02] as [UInt8])[2...]
        var reader = ByteReader(slice, context: "slice")
        #expect(reader.position == 0)
        #expect(try reader.readUInt8() == 1)
        #expect(reader.position == 1)
        #expect(throws: DecodingError.truncated(context: "slice", field: "u16", needed: 2, available: 1, at: 1)) {
            try reader.readUInt16()
        }
    }

    @Test func errorDescriptionsSayWhatAndWhere() {
        #expect(
            DecodingError.truncated(context: "ATT Read Response", field: "value", needed: 4, available: 1, at: 3)
                .description == "ATT Read Response: truncated at byte 3: value needs 4 byte(s), 1 left")
        #expect(
            DecodingError.invalidValue(context: "Battery Level", field: "level", reason: "too high", at: 0)
                .description == "Battery Level: invalid level at byte 0: too high")
    }

    @Test(arguments: [
        ("0a1B", [0x0A, 0x1B] as [UInt8]), ("0a:1b", [0x0A, 0x1B]), ("0a-1b 2c", [0x0A, 0x1B, 0x2C]), ("", []),
    ])
    func parsesHex(text: String, bytes: [UInt8]) {
        #expect([UInt8](hex: text) == bytes)
        #expect([UInt8](hex: bytes.hexString) == bytes)
    }

    @Test(arguments: ["0", "0g", "+f", "+f0a", "x1", "１２"])
    func rejectsMalformedHex(text: String) {
        #expect([UInt8](hex: text) == nil)
    }

    @Test func printsLowerCaseHex() {
        #expect([0x00, 0x0F, 0xA0, 0xFF].hexString == "000fa0ff")
        #expect([UInt8]().hexString == "")
    }

    @Test func printsEveryByteAsTwoDigitsAsTheStandardLibraryWritesThem() {
        let all = (0...255).map(UInt8.init)
        let expected = all.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
        #expect(all.hexString == expected)
    }
}
