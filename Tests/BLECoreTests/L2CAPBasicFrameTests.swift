import Testing

@testable import BLECore

@Suite("L2CAP B-frames")
struct L2CAPBasicFrameTests {
    /// An ATT Exchange MTU Request (MTU 247) on the ATT channel.
    static let mtuRequest = [UInt8](hex: "03 00 04 00 02 f7 00")!

    @Test(
        arguments: [
            ("03 00 04 00 02 f7 00", L2CAP.BasicFrame(channel: .att, payload: [0x02, 0xF7, 0x00])),
            ("00 00 06 00", L2CAP.BasicFrame(channel: .securityManager, payload: [])),
            ("02 00 05 00 aa bb", L2CAP.BasicFrame(channel: .leSignaling, payload: [0xAA, 0xBB])),
            ("01 00 40 00 ff", L2CAP.BasicFrame(channel: ChannelIdentifier(rawValue: 0x0040), payload: [0xFF])),
        ] as [(String, L2CAP.BasicFrame)])
    func decodesAndEncodesFrames(hex: String, frame: L2CAP.BasicFrame) throws {
        let bytes = try #require([UInt8](hex: hex))
        #expect(try L2CAP.BasicFrame(decoding: bytes) == frame)
        #expect(frame.encoded == bytes)
    }

    typealias ChannelIdentifier = L2CAP.ChannelIdentifier

    @Test func fixedLEChannelsHaveTheirSpecNumbers() {
        #expect(L2CAP.ChannelIdentifier.att.rawValue == 0x0004)
        #expect(L2CAP.ChannelIdentifier.leSignaling.rawValue == 0x0005)
        #expect(L2CAP.ChannelIdentifier.securityManager.rawValue == 0x0006)
        #expect(L2CAP.ChannelIdentifier.att.description == "0x0004 (ATT)")
        #expect(L2CAP.ChannelIdentifier(rawValue: 0x0041).isDynamicLE)
        #expect(L2CAP.BasicFrame.att([0x02, 0xF7, 0x00]).encoded == Self.mtuRequest)
    }

    @Test(arguments: [
        ("", DecodingError.truncated(context: "L2CAP B-frame", field: "length", needed: 2, available: 0, at: 0)),
        ("03 00 04", .truncated(context: "L2CAP B-frame", field: "channel ID", needed: 2, available: 1, at: 2)),
        ("03 00 04 00 02 f7", .truncated(context: "L2CAP B-frame", field: "payload", needed: 3, available: 2, at: 4)),
        ("01 00 04 00 02 f7", .trailingBytes(context: "L2CAP B-frame", count: 1, at: 5)),
    ])
    func malformedFramesThrow(hex: String, error: DecodingError) throws {
        let bytes = try #require([UInt8](hex: hex))
        #expect(throws: error) { try L2CAP.BasicFrame(decoding: bytes) }
    }

    @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 27, 251])
    func fragmentsCarryTheFrameInPiecesOfAtMostN(maximumSize: Int) {
        let frame = L2CAP.BasicFrame.att([UInt8](0..<40))
        let fragments = frame.fragments(maximumSize: maximumSize)
        #expect(fragments.first?.boundary == .start)
        #expect(fragments.dropFirst().allSatisfy { $0.boundary == .continuation })
        #expect(fragments.allSatisfy { !$0.bytes.isEmpty && $0.bytes.count <= maximumSize })
        #expect(fragments.flatMap(\.bytes) == frame.encoded)
        #expect(fragments.count == (44 + maximumSize - 1) / maximumSize)
    }

    @Test func a27ByteLinkCutsA30ByteFrameInTwo() {
        let frame = L2CAP.BasicFrame.att([UInt8](repeating: 0xAB, count: 26))
        #expect(
            frame.fragments(maximumSize: 27) == [
                L2CAP.Fragment(.start, [0x1A, 0x00, 0x04, 0x00] + [UInt8](repeating: 0xAB, count: 23)),
                L2CAP.Fragment(.continuation, [0xAB, 0xAB, 0xAB]),
            ])
    }
}
