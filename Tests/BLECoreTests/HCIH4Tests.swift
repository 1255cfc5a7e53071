import Testing

@testable import BLECore

@Suite("H4 packets and stream parsing")
struct HCIH4Tests {
    static let packets: [(String, HCI.PacketType)] = [
        ("01 03 0c 00", .command),
        ("01 01 20 08 ff ff ff ff ff ff ff 3f", .command),
        ("02 40 00 07 00 03 00 04 00 02 f7 00", .aclData),
        ("03 01 00 02 aa bb", .synchronousData),
        ("04 05 04 00 40 00 13", .event),
        ("04 0e 04 01 03 0c 00", .event),
        ("05 01 00 02 40 aa bb", .isoData),
    ]

    @Test(arguments: packets)
    func decodesEveryPacketType(hex: String, type: HCI.PacketType) throws {
        let bytes = try #require([UInt8](hex: hex))
        let packet = try HCI.H4Packet(decoding: bytes)
        #expect(packet.type == type)
        #expect(packet.body == Array(bytes.dropFirst()))
        #expect(packet.encoded == bytes)
    }

    @Test func indicatorsHaveTheirSpecValues() {
        #expect(HCI.PacketType.allCases.map(\.rawValue) == [0x01, 0x02, 0x03, 0x04, 0x05])
        #expect(HCI.PacketType.aclData.description == "0x02 (ACL data)")
    }

    @Test(arguments: [
        ("00 03 0c 00", "packet indicator"),
        ("06 00", "packet indicator"),
        ("", "packet indicator"),
        ("01 03 0c", "command header"),
        ("01 03 0c 01", "command parameters"),
        ("02 40 00 07 00 03", "ACL data parameters"),
        ("04 05", "event header"),
        ("04 05 04 00 40 00 13 00", "trailing"),
        ("05 01 00 03 40 aa bb", "ISO data parameters"),
    ])
    func malformedPacketsThrow(hex: String, field: String) throws {
        let bytes = try #require([UInt8](hex: hex))
        let error = try #require(throws: DecodingError.self) { try HCI.H4Packet(decoding: bytes) }
        #expect(HCIEventTests.field(of: error) == field)
    }

    @Test func typedAccessorsCheckThePacketType() throws {
        let acl = try HCI.H4Packet(decoding: [UInt8](hex: "02 40 00 01 00 ff")!)
        #expect(try acl.aclDataPacket() == HCI.ACLDataPacket(handle: 0x40, boundary: .firstNonFlushable, data: [0xFF]))
        #expect(throws: DecodingError.self) { try acl.eventPacket() }
        let event = HCI.H4Packet(HCI.DisconnectionComplete(handle: 1, reason: .connectionTimeout).event)
        #expect(try HCI.DisconnectionComplete(event: event.eventPacket()).reason == .connectionTimeout)
        #expect(throws: DecodingError.self) { try event.aclDataPacket() }
    }

    static var stream: [UInt8] { packets.flatMap { [UInt8](hex: $0.0)! } }

    @Test(arguments: [1, 2, 3, 7, 1_000])
    func parserSplitsAStreamFedInChunksOfAnySize(chunk: Int) throws {
        var parser = HCI.H4Parser()
        var received: [HCI.H4Packet] = []
        let stream = Self.stream
        for start in stride(from: 0, to: stream.count, by: chunk) {
            received += try parser.feed(stream[start..<min(start + chunk, stream.count)])
        }
        #expect(received.map(\.encoded) == Self.packets.map { [UInt8](hex: $0.0)! })
        #expect(parser.bufferedCount == 0)
    }

    @Test func parserHoldsAnIncompletePacket() throws {
        var parser = HCI.H4Parser()
        #expect(try parser.feed([0x04, 0x05, 0x04, 0x00]).isEmpty)
        #expect(parser.bufferedCount == 4)
        #expect(try parser.feed([0x40, 0x00, 0x13, 0x04]).map(\.type) == [.event])
        #expect(parser.bufferedCount == 1)
    }

    @Test func parserThrowsOnAnUnknownIndicatorWithItsStreamOffset() throws {
        var parser = HCI.H4Parser()
        _ = try parser.feed([0x01, 0x03, 0x0C, 0x00])
        #expect(
            throws: DecodingError.invalidValue(
                context: "H4 stream", field: "packet indicator", reason: "0x09 is not 0x01–0x05; framing is lost",
                at: 4
            )
        ) { try parser.feed([0x09, 0x00]) }
        parser.reset()
        #expect(try parser.feed([0x01, 0x03, 0x0C, 0x00]).count == 1)
    }
}

@Suite struct H4ParserFramingLossTests {
    @Test func packetsBeforeTheBadByteAreKept() throws {
        var parser = HCI.H4Parser()
        var packets: [HCI.H4Packet] = []
        let reset = HCI.Event.commandComplete(numberOfCommands: 1, opcode: .reset, returnParameters: [0]).h4
        #expect(throws: DecodingError.self) { try parser.feed(reset.encoded + [0xFF], into: &packets) }
        #expect(packets == [reset])
    }
}

extension HCIH4Tests {
    @Test("packetLength frames a packet in place: nil until its header and parameters are all there")
    func packetLengthInPlace() throws {
        // Command Complete for Reset (7 bytes), then an ACL packet with 4 bytes of data (9 bytes).
        let event: [UInt8] = [0x04, 0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00]
        let acl: [UInt8] = [0x02, 0x41, 0x20, 0x04, 0x00, 0x00, 0x00, 0x04, 0x00]
        let stream = event + acl
        func length(_ bytes: [UInt8], at start: Int = 0) throws -> Int? {
            try bytes.withUnsafeBufferPointer { try HCI.H4Parser.packetLength($0, at: start) }
        }
        #expect(try length(stream) == 7)
        #expect(try length(stream, at: 7) == 9)
        #expect(try length(stream, at: 16) == nil)
        for cut in [1, 2, 6] { #expect(try length(Array(event.prefix(cut))) == nil, "\(cut) bytes") }
        for cut in [1, 4, 8] { #expect(try length(Array(acl.prefix(cut))) == nil, "\(cut) bytes") }
        do {
            _ = try stream.withUnsafeBufferPointer { try HCI.H4Parser.packetLength($0, at: 1, consumedBefore: 100) }
            Issue.record("0x0E was taken for a packet indicator")
        } catch {
            #expect("\(error)".contains("at byte 101"), "\(error)")
        }
    }
}
