import Testing

@testable import BLECore

@Suite("ATT PDU malformed input")
struct ATTPDUMalformedTests {
    /// Inputs the specification does not allow, with the field the error must name.
    static let malformed: [(hex: String, field: String)] = [
        ("", "opcode"),
        ("14", "opcode"),  // reserved
        ("FF 0000", "opcode"),
        ("01 0A 0300", "error code"),
        ("01 0A 0300 02 00", "trailing"),
        ("02 F7", "client rx MTU"),
        ("02 F700 00", "trailing"),
        ("03", "server rx MTU"),
        ("04 0100 FF", "ending handle"),
        ("04 0100 FFFF 00", "trailing"),
        ("05", "format"),
        ("05 03 0100 0229", "format"),
        ("05 01", "information data"),
        ("05 01 0100 02", "information data"),
        ("05 02 0100 0028", "information data"),
        ("06 0100 FFFF 00", "attribute type"),
        ("07", "handles information list"),
        ("07 0100 09", "handles information list"),
        ("08 0100 FFFF 03", "attribute type"),
        ("08 0100 FFFF", "attribute type"),
        ("08 0100 FFFF 0000 0028", "attribute type"),  // ATT has no 32-bit UUIDs
        ("09", "length"),
        ("09 00", "length"),
        ("09 01 02", "length"),
        ("09 04", "attribute data list"),
        ("09 04 0200 01", "attribute data list"),
        ("0A 03", "attribute handle"),
        ("0A 0300 00", "trailing"),
        ("0C 0300 16", "value offset"),
        ("0E 0300", "set of handles"),
        ("0E 0300 05", "set of handles"),
        ("0E", "set of handles"),
        ("10 0100 FFFF 00 28 00", "attribute group type"),
        ("11 03 0100 0500", "length"),
        ("11 06 0100 0500 0A", "attribute data list"),
        ("11 06", "attribute data list"),
        ("20 0300", "set of handles"),
        ("21", "value length"),
        ("21 0100 64 05", "value length"),
        ("12 05", "attribute handle"),
        ("13 00", "trailing"),
        ("52", "attribute handle"),
        ("D2 0500 0102", "authentication signature"),
        ("16 0500 00", "value offset"),
        ("17 05", "attribute handle"),
        ("18", "flags"),
        ("18 02", "flags"),
        ("18 01 00", "trailing"),
        ("19 00", "trailing"),
        ("1B 03", "attribute handle"),
        ("1D", "attribute handle"),
        ("1E 00", "trailing"),
        ("23 0300 0100 64", "handle length value tuple list"),
        ("23 0300 0100 64 0800 0500 0102", "attribute value"),
        ("23 0300 0100 64 08", "attribute handle"),
    ]

    @Test("malformed PDUs throw an error naming the field", arguments: malformed)
    func malformedThrowsNamingTheField(hex: String, field: String) throws {
        let bytes = try #require([UInt8](hex: hex))
        do {
            let pdu = try ATT.PDU(decoding: bytes)
            Issue.record("decoded \(pdu) from malformed \(hex)")
        } catch {
            switch error {
            case .truncated(_, let name, _, _, _), .invalidValue(_, let name, _, _):
                #expect(name == field, "\(error)")
            case .trailingBytes:
                #expect(field == "trailing", "\(error)")
            }
        }
    }

    @Test("decoding errors name the PDU they were decoding")
    func errorsNameThePDU() {
        #expect(
            throws: DecodingError.invalidValue(
                context: "ATT Read Multiple Request", field: "set of handles",
                reason: "2 byte(s) is not at least 2 entries of 2 byte(s)", at: 1)
        ) { try ATT.PDU(decoding: [0x0E, 0x03, 0x00]) }
        #expect(
            throws: DecodingError.invalidValue(
                context: "ATT Execute Write Request", field: "flags",
                reason: "0x02 is reserved; 0x00 cancels, 0x01 writes",
                at: 1)
        ) { try ATT.PDU(decoding: [0x18, 0x02]) }
        #expect(throws: DecodingError.trailingBytes(context: "ATT Exchange MTU Request", count: 1, at: 3)) {
            try ATT.PDU(decoding: [0x02, 0xF7, 0x00, 0x00])
        }
    }

    @Test("every proper prefix of a fixed-size PDU is refused", arguments: attVectors.filter { $0.pdu.isFixedSize })
    func prefixesOfFixedSizePDUsThrow(hex: String, pdu: ATT.PDU) throws {
        let bytes = try #require([UInt8](hex: hex))
        for count in 0..<bytes.count {
            #expect(throws: DecodingError.self) { try ATT.PDU(decoding: Array(bytes.prefix(count))) }
        }
    }
}

extension ATT.PDU {
    /// PDUs whose length the specification fixes, so that any shorter input is malformed.
    var isFixedSize: Bool {
        switch self {
        case .errorResponse, .exchangeMTURequest, .exchangeMTUResponse, .findInformationRequest, .readRequest,
            .readBlobRequest, .writeResponse, .executeWriteRequest, .executeWriteResponse, .handleValueConfirmation:
            true
        default: false
        }
    }
}
