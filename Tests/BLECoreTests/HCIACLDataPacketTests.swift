import Testing

@testable import BLECore

@Suite("HCI ACL data packets")
struct HCIACLDataPacketTests {
    @Test(
        arguments: [
            (
                "40 00 07 00 03 00 04 00 02 f7 00",
                HCI.ACLDataPacket(
                    handle: 0x040, boundary: .firstNonFlushable, data: [UInt8](hex: "03 00 04 00 02 f7 00")!)
            ),
            ("40 20 02 00 aa bb", HCI.ACLDataPacket(handle: 0x040, boundary: .firstFlushable, data: [0xAA, 0xBB])),
            ("40 10 01 00 cc", HCI.ACLDataPacket(handle: 0x040, boundary: .continuing, data: [0xCC])),
            ("ff 3e 00 00", HCI.ACLDataPacket(handle: 0xEFF, boundary: .complete, data: [])),
            (
                "01 40 00 00",
                HCI.ACLDataPacket(handle: 0x001, boundary: .firstNonFlushable, broadcast: .brEdrBroadcast, data: [])
            ),
            (
                "ff ff 00 00",
                HCI.ACLDataPacket(
                    handle: 0xFFF, boundary: .complete, broadcast: HCI.BroadcastFlag(rawValue: 3)!, data: [])
            ),
        ] as [(String, HCI.ACLDataPacket)])
    func decodesAndEncodesTheHandleFlagsAndLength(hex: String, packet: HCI.ACLDataPacket) throws {
        let bytes = try #require([UInt8](hex: hex))
        #expect(try HCI.ACLDataPacket(decoding: bytes) == packet)
        #expect(packet.encoded == bytes)
    }

    @Test(arguments: [
        (
            "40",
            DecodingError.truncated(
                context: "HCI ACL data packet", field: "handle and flags", needed: 2, available: 1, at: 0)
        ),
        (
            "40 00 07",
            .truncated(context: "HCI ACL data packet", field: "data total length", needed: 2, available: 1, at: 2)
        ),
        (
            "40 00 07 00 03 00",
            .truncated(context: "HCI ACL data packet", field: "data", needed: 7, available: 2, at: 4)
        ),
        ("40 00 01 00 03 00", .trailingBytes(context: "HCI ACL data packet", count: 1, at: 5)),
    ])
    func malformedPacketsThrow(hex: String, error: DecodingError) throws {
        let bytes = try #require([UInt8](hex: hex))
        #expect(throws: error) { try HCI.ACLDataPacket(decoding: bytes) }
    }

    @Test func packetsCarryingAFrameMarkTheStartByDirection() {
        let frame = L2CAP.BasicFrame.att([UInt8](repeating: 0x55, count: 30))
        let outgoing = HCI.ACLDataPacket.packets(
            carrying: frame, handle: 0x41, direction: .hostToController, maximumDataLength: 27)
        #expect(outgoing.map(\.boundary) == [.firstNonFlushable, .continuing])
        #expect(outgoing.map(\.data.count) == [27, 7])
        #expect(outgoing.allSatisfy { $0.handle == 0x41 && $0.broadcast == .pointToPoint })
        let incoming = HCI.ACLDataPacket.packets(
            carrying: frame, handle: 0x41, direction: .controllerToHost, maximumDataLength: 251)
        #expect(incoming.map(\.boundary) == [.firstFlushable])
        #expect(incoming[0].data == frame.encoded)
    }

    @Test func packetsFeedTheReassemblerBackIntoTheFrame() throws {
        let frame = L2CAP.BasicFrame.att([0x1B, 0x03, 0x00] + [UInt8](0..<100))
        var reassembler = L2CAP.Reassembler()
        var result: L2CAP.BasicFrame?
        for packet in HCI.ACLDataPacket.packets(
            carrying: frame, handle: 1, direction: .controllerToHost, maximumDataLength: 27)
        {
            let wire = try HCI.ACLDataPacket(decoding: packet.encoded)
            result = try reassembler.push(wire.fragment)
        }
        #expect(result == frame)
    }

    @Test func flagsDescribeThemselves() {
        #expect(HCI.PacketBoundary.firstNonFlushable.description == "first non-flushable")
        #expect(HCI.PacketBoundary(rawValue: 4) == nil)
        #expect(HCI.BroadcastFlag(rawValue: 4) == nil)
        #expect(
            HCI.ACLDataPacket(handle: 0x40, boundary: .continuing, data: [1]).description
                == "ACL handle 0x40 continuing 1 bytes: 01")
    }
}
