import Testing

@testable import BLECore

/// The 128-bit UUID of the esp-point Reading characteristic, e5b10101-7c3a-4f0e-9d2b-5a1c3e7f9b20.
let attTestReadingUUID = BluetoothUUID("e5b10101-7c3a-4f0e-9d2b-5a1c3e7f9b20")!
/// Its little-endian wire form.
let attTestReadingWire = "209b7f3e1c5a2b9d0e4f3a7c0101b1e5"

/// Byte-exact vectors written from the field layouts of Core 5.4 Vol 3 Part F §3.4: one or more per PDU.
let attVectors: [(hex: String, pdu: ATT.PDU)] = [
    ("01 0A 0300 02", .errorResponse(.init(requestOpcode: .readRequest, handle: 3, error: .readNotPermitted))),
    ("01 12 0000 FD", .errorResponse(.init(requestOpcode: .writeRequest, handle: 0, error: .cccdImproperlyConfigured))),
    ("02 F700", .exchangeMTURequest(.init(clientRxMTU: 247))),
    ("03 1700", .exchangeMTUResponse(.init(serverRxMTU: 23))),
    ("04 0100 FFFF", .findInformationRequest(.init(startingHandle: 1, endingHandle: 0xFFFF))),
    (
        "05 01 0300 0229 0400 0328",
        .findInformationResponse(
            .init(entries: [
                .init(handle: 3, type: BluetoothUUID(0x2902)), .init(handle: 4, type: BluetoothUUID(0x2803)),
            ]))
    ),
    (
        "05 02 0500 " + attTestReadingWire,
        .findInformationResponse(.init(entries: [.init(handle: 5, type: attTestReadingUUID)]))
    ),
    (
        "06 0100 FFFF 0028 0A18",
        .findByTypeValueRequest(
            .init(startingHandle: 1, endingHandle: 0xFFFF, attributeType: BluetoothUUID(0x2800), value: [0x0A, 0x18]))
    ),
    (
        "07 0100 0900 0A00 0D00",
        .findByTypeValueResponse(
            .init(handles: [.init(foundHandle: 1, groupEndHandle: 9), .init(foundHandle: 10, groupEndHandle: 13)]))
    ),
    (
        "08 0100 FFFF 0328",
        .readByTypeRequest(.init(startingHandle: 1, endingHandle: 0xFFFF, attributeType: BluetoothUUID(0x2803)))
    ),
    (
        "08 0A00 0F00 " + attTestReadingWire,
        .readByTypeRequest(.init(startingHandle: 10, endingHandle: 15, attributeType: attTestReadingUUID))
    ),
    (
        "09 07 0200 02 0300 292A 0400 02 0500 242A",
        .readByTypeResponse(
            .init(entries: [
                .init(handle: 2, value: [0x02, 0x03, 0x00, 0x29, 0x2A]),
                .init(handle: 4, value: [0x02, 0x05, 0x00, 0x24, 0x2A]),
            ]))
    ),
    ("0A 0300", .readRequest(.init(handle: 3))),
    ("0B 4142", .readResponse(.init(value: Array("AB".utf8)))),
    ("0B", .readResponse(.init(value: []))),
    ("0C 0300 1600", .readBlobRequest(.init(handle: 3, offset: 22))),
    ("0D 0102", .readBlobResponse(.init(value: [1, 2]))),
    ("0E 0300 0500", .readMultipleRequest(.init(handles: [3, 5]))),
    ("0F 6401", .readMultipleResponse(.init(values: [0x64, 0x01]))),
    (
        "10 0100 FFFF 0028",
        .readByGroupTypeRequest(.init(startingHandle: 1, endingHandle: 0xFFFF, groupType: BluetoothUUID(0x2800)))
    ),
    (
        "11 06 0100 0500 0A18 0600 0900 0F18",
        .readByGroupTypeResponse(
            .init(entries: [
                .init(handle: 1, endGroupHandle: 5, value: [0x0A, 0x18]),
                .init(handle: 6, endGroupHandle: 9, value: [0x0F, 0x18]),
            ]))
    ),
    ("20 0300 0500", .readMultipleVariableRequest(.init(handles: [3, 5]))),
    ("21 0100 64 0200 0102", .readMultipleVariableResponse(.init(values: [[0x64], [1, 2]]))),
    (
        "21 0100 64 0500 0102",
        .readMultipleVariableResponse(.init(values: [[0x64], [1, 2]], truncatedLastValueLength: 5))
    ),
    ("12 0500 01", .writeRequest(.init(handle: 5, value: [1]))),
    ("13", .writeResponse(.init())),
    ("52 0500 0102", .writeCommand(.init(handle: 5, value: [1, 2]))),
    (
        "D2 0500 01 000102030405060708090A0B",
        .signedWriteCommand(.init(handle: 5, value: [1], signature: Array(0...11)))
    ),
    ("16 0500 0000 010203", .prepareWriteRequest(.init(handle: 5, offset: 0, value: [1, 2, 3]))),
    ("17 0500 1200 0405", .prepareWriteResponse(.init(handle: 5, offset: 18, value: [4, 5]))),
    ("18 00", .executeWriteRequest(.init(flags: .cancel))),
    ("18 01", .executeWriteRequest(.init(flags: .write))),
    ("19", .executeWriteResponse(.init())),
    ("1B 0300 64", .handleValueNotification(.init(handle: 3, value: [0x64]))),
    ("1D 0500 81", .handleValueIndication(.init(handle: 5, value: [0x81]))),
    ("1E", .handleValueConfirmation(.init())),
    (
        "23 0300 0100 64 0800 0200 0102",
        .multipleHandleValueNotification(
            .init(entries: [.init(handle: 3, value: [0x64]), .init(handle: 8, value: [1, 2])]))
    ),
]

@Suite("ATT PDU vectors")
struct ATTPDUVectorTests {
    @Test("every vector decodes to its message and the message encodes to the vector", arguments: attVectors)
    func vectorDecodesAndEncodesByteExact(hex: String, pdu: ATT.PDU) throws {
        let bytes = try #require([UInt8](hex: hex))
        #expect(try ATT.PDU(decoding: bytes) == pdu)
        #expect(pdu.encoded == bytes)
        #expect(pdu.opcode.rawValue == bytes[0])
    }

    @Test("encode(decode(bytes)) == bytes for every vector", arguments: attVectors)
    func vectorRoundTrips(hex: String, pdu: ATT.PDU) throws {
        let bytes = try #require([UInt8](hex: hex))
        #expect(try ATT.PDU(decoding: bytes).encoded == bytes)
        #expect(try ATT.PDU(decoding: pdu.encoded) == pdu)
    }

    @Test("the vectors cover every ATT opcode of Core 5.4")
    func vectorsCoverEveryOpcode() {
        let covered = Set(attVectors.map(\.pdu.opcode.rawValue))
        let all: [ATT.Opcode] = [
            .errorResponse, .exchangeMTURequest, .exchangeMTUResponse, .findInformationRequest,
            .findInformationResponse, .findByTypeValueRequest, .findByTypeValueResponse, .readByTypeRequest,
            .readByTypeResponse, .readRequest, .readResponse, .readBlobRequest, .readBlobResponse,
            .readMultipleRequest, .readMultipleResponse, .readByGroupTypeRequest, .readByGroupTypeResponse,
            .writeRequest, .writeResponse, .prepareWriteRequest, .prepareWriteResponse, .executeWriteRequest,
            .executeWriteResponse, .handleValueNotification, .handleValueIndication, .handleValueConfirmation,
            .readMultipleVariableRequest, .readMultipleVariableResponse, .multipleHandleValueNotification,
            .writeCommand, .signedWriteCommand,
        ]
        #expect(Set(all.map(\.rawValue)) == covered)
    }

    @Test("a message decodes on its own type and refuses another opcode")
    func typedDecodingChecksTheOpcode() throws {
        let request = try ATT.ExchangeMTURequest(decoding: [0x02, 0xF7, 0x00])
        #expect(request.clientRxMTU == 247)
        #expect(request.encoded == [0x02, 0xF7, 0x00])
        #expect(throws: DecodingError.self) { try ATT.ExchangeMTUResponse(decoding: [0x02, 0xF7, 0x00]) }
    }

    @Test("a 16-bit UUID sent in 128-bit form keeps its form through a round trip")
    func longFormAliasRoundTrips() throws {
        let longPrimary = try #require(BluetoothUUID(0x2800).littleEndianBytes(width: 16))
        let bytes: [UInt8] = [0x10, 0x01, 0x00, 0xFF, 0xFF] + longPrimary
        guard case .readByGroupTypeRequest(let request) = try ATT.PDU(decoding: bytes) else {
            Issue.record("not a Read By Group Type Request")
            return
        }
        #expect(request.groupType == GATT.AttributeType.primaryService)
        #expect(request.groupTypeFormat == .uuid128)
        #expect(request.encoded == bytes)
    }

    @Test("a Find Information Response asked for 16-bit form falls back to 128-bit when a UUID needs it")
    func findInformationFormatWidensWhenNeeded() {
        let response = ATT.FindInformationResponse(
            format: .uuid16,
            entries: [.init(handle: 1, type: BluetoothUUID(0x2902)), .init(handle: 2, type: attTestReadingUUID)])
        #expect(response.format == .uuid128)
        #expect(response.encoded.count == 2 + 2 * 18)
    }
}
