import Testing

@testable import BLECore

@Suite("HCI events")
struct HCIEventTests {
    static let peer = DeviceAddress(0x240A_C412_1A2B)
    static let connectionComplete = HCI.LEConnectionComplete(
        handle: 0x0040, role: .central, peerAddress: peer, connectionInterval: 12, supervisionTimeout: 400)
    static let connectionCompleteBytes = [UInt8](
        hex: "3e 13 01 00 40 00 00 00 2b 1a 12 c4 0a 24 0c 00 00 00 90 01 00")!

    @Test func leConnectionCompleteEncodesEveryField() throws {
        #expect(Self.connectionComplete.encoded == Self.connectionCompleteBytes)
        #expect(try HCI.LEConnectionComplete(decoding: Self.connectionCompleteBytes) == Self.connectionComplete)
        #expect(Self.connectionComplete.connectionIntervalDuration == .milliseconds(15))
        #expect(Self.connectionComplete.supervisionTimeoutDuration == .seconds(4))
        #expect(Self.connectionComplete.event.leSubevent == .connectionComplete)
    }

    @Test func leConnectionCompleteCarriesARandomPeripheralPeer() throws {
        let event = HCI.LEConnectionComplete(
            handle: 0x0EFF, role: .peripheral, peerAddress: DeviceAddress(0xC000_0000_0001, kind: .random),
            connectionInterval: 6, peripheralLatency: 4, supervisionTimeout: 0x0C80, centralClockAccuracy: 7)
        let bytes = [UInt8](hex: "3e 13 01 00 ff 0e 01 01 01 00 00 00 00 c0 06 00 04 00 80 0c 07")!
        #expect(event.encoded == bytes)
        #expect(try HCI.LEConnectionComplete(decoding: bytes) == event)
    }

    @Test func disconnectionCompleteEncodesEveryField() throws {
        let event = HCI.DisconnectionComplete(handle: 0x0040, reason: .remoteUserTerminated)
        let bytes = [UInt8](hex: "05 04 00 40 00 13")!
        #expect(event.encoded == bytes)
        #expect(try HCI.DisconnectionComplete(decoding: bytes) == event)
        #expect(
            event.description
                == "Disconnection Complete handle 0x40 status 0x00 (success) reason 0x13 (remote user terminated "
                + "connection)"
        )
    }

    /// (bytes, field named by the error).
    static let malformedConnectionComplete: [(String, String)] = [
        ("05 04 00 40 00 13", "event code"),
        ("3e 13 02 00 40 00 00 00 2b 1a 12 c4 0a 24 0c 00 00 00 90 01 00", "subevent code"),
        ("3e 13 01 00 40 00 02 00 2b 1a 12 c4 0a 24 0c 00 00 00 90 01 00", "role"),
        ("3e 13 01 00 40 00 00 02 2b 1a 12 c4 0a 24 0c 00 00 00 90 01 00", "peer address type"),
        ("3e 13 01 00 00 0f 00 00 2b 1a 12 c4 0a 24 0c 00 00 00 90 01 00", "connection handle"),
        ("3e 13 01 3e 00 10 00 00 2b 1a 12 c4 0a 24 0c 00 00 00 90 01 00", "connection handle"),
        ("3e 12 01 00 40 00 00 00 2b 1a 12 c4 0a 24 0c 00 00 00 90 01", "central clock accuracy"),
        ("3e 05 01 00 40 00 00", "peer address type"),
        ("3e 14 01 00 40 00 00 00 2b 1a 12 c4 0a 24 0c 00 00 00 90 01 00 00", "trailing"),
        ("3e 13 01 00 40 00 00 00 2b 1a 12 c4 0a 24 0c 00 00 00 90 01", "parameters"),
        ("3e 00", "subevent code"),
        ("3e", "parameter total length"),
    ]

    @Test(arguments: malformedConnectionComplete)
    func malformedLEConnectionCompleteThrows(hex: String, field: String) throws {
        let bytes = try #require([UInt8](hex: hex))
        let error = try #require(throws: DecodingError.self) { try HCI.LEConnectionComplete(decoding: bytes) }
        #expect(Self.field(of: error) == field)
    }

    @Test func failedConnectionMayCarryAnyTwelveBitHandle() throws {
        let bytes = [UInt8](hex: "3e 13 01 3e 00 0f 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00")!
        let event = try HCI.LEConnectionComplete(decoding: bytes)
        #expect(event.status == .connectionFailedToBeEstablished)
        #expect(event.handle == 0x0F00)
    }

    @Test(arguments: [
        ("3e 04 00 40 00 13", "event code"),
        ("05 03 00 40 00", "reason"),
        ("05 05 00 40 00 13 00", "trailing"),
        ("05 04 00 00 0f 13", "connection handle"),
        ("05 04 00 40 00", "parameters"),
    ])
    func malformedDisconnectionCompleteThrows(hex: String, field: String) throws {
        let bytes = try #require([UInt8](hex: hex))
        let error = try #require(throws: DecodingError.self) { try HCI.DisconnectionComplete(decoding: bytes) }
        #expect(Self.field(of: error) == field)
    }

    @Test func eventPacketFramesAnyEvent() throws {
        let bytes = [UInt8](hex: "0e 04 01 03 0c 00")!
        let event = try HCI.EventPacket(decoding: bytes)
        #expect(event.code == .commandComplete)
        #expect(event.parameters == [0x01, 0x03, 0x0C, 0x00])
        #expect(event.encoded == bytes)
        #expect(event.leSubevent == nil)
        #expect(HCI.EventCode.leMeta.description == "0x3E (LE Meta)")
    }

    static func field(of error: DecodingError) -> String {
        switch error {
        case .truncated(_, let field, _, _, _): field
        case .invalidValue(_, let field, _, _): field
        case .trailingBytes: "trailing"
        }
    }
}
