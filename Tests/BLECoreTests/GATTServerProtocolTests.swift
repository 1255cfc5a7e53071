import Testing

@testable import BLECore

@Suite("GATT server protocol errors and fuzzing")
struct GATTServerProtocolTests {
    @Test(
        "a request that does not decode is 0x04 Invalid PDU for its opcode",
        arguments: [
            ("0A 03", "01 0A 0000 04"), ("0A 0300 00", "01 0A 0000 04"), ("02 17", "01 02 0000 04"),
            ("04 0100", "01 04 0000 04"), ("06 0100 FFFF 00", "01 06 0000 04"),
            ("08 0100 FFFF 0000 0028", "01 08 0000 04"),
            ("0C 0300", "01 0C 0000 04"), ("0E 0300", "01 0E 0000 04"), ("10 0100 FFFF 28", "01 10 0000 04"),
            ("20 0300", "01 20 0000 04"), ("12 03", "01 12 0000 04"), ("16 0300 00", "01 16 0000 04"),
            ("18 02", "01 18 0000 04"), ("18", "01 18 0000 04"),
            ("16 1600 0000 " + String(repeating: "AA", count: 19), "01 16 0000 04"),  // 24 bytes at ATT_MTU 23
            ("12 1600 " + String(repeating: "AA", count: 21), "01 12 0000 04"),
        ])
    func undecodableRequest(request: String, response: String) throws {
        var harness = try GATTServerHarness()
        #expect(harness.receive(request) == [sendPDU(response)])
    }

    @Test(
        "an unknown request is 0x06 Request Not Supported echoing its opcode",
        arguments: [
            ("14", "01 14 0000 06"), ("15 0102", "01 15 0000 06"), ("3F", "01 3F 0000 06"), ("80 00", "01 80 0000 06"),
        ])
    func unknownRequest(request: String, response: String) throws {
        var harness = try GATTServerHarness()
        #expect(harness.receive(request) == [sendPDU(response)])
    }

    @Test(
        "commands, PDUs meant for a client, malformed confirmations and empty PDUs get no response",
        arguments: [
            "", "7F", "40 0102", "C0", "52", "D2 0100",  // commands, known or not
            "01 0A 0300 02", "03 1700", "0B 64", "13", "19", "1B 0800 64", "1D 0800 64", "23 0800 0100 64 0900 0100 65",
            "1E 00",
        ])
    func noResponse(pdu: String) throws {
        var harness = try GATTServerHarness()
        #expect(harness.receive(pdu).isEmpty)
        #expect(harness.app.events.isEmpty)
    }

    @Test("pipelined requests are answered in order, one response each")
    func pipelinedRequests() throws {
        var harness = try GATTServerHarness()
        let first = harness.receive("0A 0300")
        let second = harness.receive("0A 0800")
        #expect(first + second == [sendPDU("0B " + utf8Hex("Espressif")), sendPDU("0B 64")])
    }

    /// The response opcode a request must be answered with.
    static let responses: [UInt8: UInt8] = [
        0x02: 0x03, 0x04: 0x05, 0x06: 0x07, 0x08: 0x09, 0x0A: 0x0B, 0x0C: 0x0D, 0x0E: 0x0F, 0x10: 0x11, 0x20: 0x21,
        0x12: 0x13, 0x16: 0x17, 0x18: 0x19,
    ]

    /// Feeds `pdu` and checks the outcome: nothing, or exactly one well-formed PDU answering it within the MTU.
    static func checkOneResponse(_ server: inout GATTServer, _ app: inout RecordingGATTApplication, _ pdu: [UInt8]) {
        let actions = server.receive(pdu, from: 7, application: &app)
        guard let first = pdu.first else {
            #expect(actions.isEmpty)
            return
        }
        let opcode = ATT.Opcode(rawValue: first)
        let mustAnswer = !opcode.isCommand && !GATTServer.clientBound.contains(opcode) && first != 0x1E
        #expect(actions.count == (mustAnswer ? 1 : 0), "\(pdu.hexString) gave \(actions)")
        guard case .send(let bytes, let connection)? = actions.first else { return }
        #expect(connection == 7)
        #expect(bytes.count <= Int(server.mtu(of: 7)), "\(pdu.hexString) → \(bytes.hexString) exceeds the MTU")
        guard let response = try? ATT.PDU(decoding: bytes) else {
            Issue.record("\(pdu.hexString) → malformed response \(bytes.hexString)")
            return
        }
        #expect(response.encoded == bytes)
        if case .errorResponse(let error) = response {
            #expect(error.requestOpcode == opcode)
        } else {
            #expect(Self.responses[first] == bytes[0], "\(pdu.hexString) → \(bytes.hexString)")
        }
    }

    @Test("random and truncated PDUs yield nothing or exactly one well-formed response, never a trap")
    func fuzzRequests() throws {
        var rng = SplitMix64(seed: 0x6A77_5E4F)
        var harness = try GATTServerHarness()
        let opcodes: [UInt8] = [
            0x02, 0x04, 0x06, 0x08, 0x0A, 0x0C, 0x0E, 0x10, 0x12, 0x16, 0x18, 0x1E, 0x20, 0x52, 0xD2,
        ]
        for round in 0..<6_000 {
            var pdu: [UInt8] = [opcodes.randomElement(using: &rng)!]
            if round % 5 == 0 { pdu[0] = UInt8.random(in: 0...255, using: &rng) }
            // Handles mostly inside the table so that the procedures, not just the handle check, run.
            for _ in 0..<Int.random(in: 0...4, using: &rng) {
                pdu += [UInt8.random(in: 0...0x1F, using: &rng), 0x00]
            }
            if Bool.random(using: &rng) {
                pdu += (0..<Int.random(in: 0...24, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            }
            if Int.random(in: 0..<4, using: &rng) == 0 {
                pdu = Array(pdu.prefix(Int.random(in: 0...pdu.count, using: &rng)))
            }
            Self.checkOneResponse(&harness.server, &harness.app, pdu)
        }
    }

    @Test("every prefix of a valid request yields nothing (when empty) or one response, never a trap")
    func truncatedRequests() throws {
        var harness = try GATTServerHarness()
        let requests = [
            "02 F700", "04 0100 FFFF", "06 0100 FFFF 0028 0F18", "08 0100 FFFF 0328", "0A 0300", "0C 1600 1600",
            "0E 0300 0800", "10 0100 FFFF 0028", "20 0300 0800", "12 1600 01", "16 1600 0000 01", "18 01",
        ]
        for request in requests {
            let bytes = try #require([UInt8](hex: request))
            for count in 0...bytes.count {
                Self.checkOneResponse(&harness.server, &harness.app, Array(bytes.prefix(count)))
            }
        }
    }
}
