import BLECore
import Testing

@testable import Benchmarks

/// The socket floor's script and replay, on the packets of one handshake of blerig's central against peripheral.py
/// on rootcanal 1.10.0, as tshark read them off the loopback on 2026-11-27 (handle 0x0EFE).
@Suite("bench hci's socket floor: the recorded handshake and its replay")
struct HandshakeReplayTests {
    typealias Direction = HCI.Direction

    static let captured: [(Direction, String)] = [
        (.hostToController, "0143201a0000016d06ee2c22f101100010000c000c000000900100000000"),
        (.controllerToHost, "040f0400014320"),
        (.controllerToHost, "043e1f0a00fe0e00016d06ee2c22f10000000000000000000000000c000000900100"),
        (.hostToController, "02fe0e07000300040002f700"),
        (.controllerToHost, "04130501fe0e0100"),
        (.controllerToHost, "02fe2e070003000400030502"),
        (.hostToController, "02fe0e0b0007000400100100ffff0028"),
        (.controllerToHost, "04130501fe0e0100"),
        (.controllerToHost, "02fe2e12000e000400110601000500001806000d000118"),
        (.hostToController, "02fe0e0b000700040008280029000328"),
        (.controllerToHost, "04130501fe0e0100"),
        // A Read By Type Response in two fragments: 0x17 bytes of L2CAP payload, 0x10 + 0x0B of ACL data.
        (.controllerToHost, "02fe2e10001700040009152800022900209b7f3e1c"),
        (.controllerToHost, "02fe1e0b005a2b9d0e4f3a7c0cf0b1e5"),
        (.hostToController, "01060403fe0e13"),
        (.controllerToHost, "040f0400010604"),
        (.controllerToHost, "04050400fe0e16"),
    ]

    static func packet(_ hex: String) -> HCI.H4Packet {
        let bytes = stride(from: 0, to: hex.count, by: 2).map { offset in
            let start = hex.index(hex.startIndex, offsetBy: offset)
            return UInt8(hex[start..<hex.index(start, offsetBy: 2)], radix: 16)!
        }
        return try! HCI.H4Packet(decoding: bytes)
    }

    static var traffic: [(Direction, HCI.H4Packet)] { captured.map { ($0.0, packet($0.1)) } }

    /// Feeds `replay` each controller packet of `incoming`, returning what it said after each.
    static func feed(
        _ replay: inout HandshakeReplay, _ incoming: [String]
    ) throws(BenchmarkError) -> [HandshakeReplay.Progress] {
        var answers: [HandshakeReplay.Progress] = []
        for hex in incoming {
            let bytes = packet(hex).encoded
            let answer = bytes.withUnsafeBytes { raw in
                Result { () throws(BenchmarkError) in try replay.received(raw) }
            }
            answers.append(try answer.get())
        }
        return answers
    }

    @Test("the script is the central's packets, each with the answer it waited for")
    func scriptFromTraffic() throws {
        let script = try HandshakeScript.recorded(Self.traffic)
        #expect(
            script.steps.map(\.awaits) == [
                .linkUp, .attPDU(opcode: 0x03), .attPDU(opcode: 0x11), .attPDU(opcode: 0x09), .linkDown,
            ])
        #expect(script.steps[0].packet == Self.packet(Self.captured[0].1).encoded)
    }

    @Test("a recording without a whole handshake is refused", arguments: [0, 1])
    func partialRecordings(cut: Int) {
        var traffic = Self.traffic
        // Without its connection request, or without the Disconnect (and what followed it).
        if cut == 0 { traffic.removeFirst() } else { traffic.removeLast(3) }
        #expect(throws: BenchmarkError.self) { try HandshakeScript.recorded(traffic) }
        // An ATT request nobody answered.
        #expect(throws: BenchmarkError.self) {
            try HandshakeScript.recorded(Array(Self.traffic.prefix(4)) + [Self.traffic[13]])
        }
    }

    @Test("the replay sends each packet once the answer is in, under the handle the controller gave")
    func replayOnANewHandle() throws {
        var replay = HandshakeReplay(try HandshakeScript.recorded(Self.traffic))
        #expect(replay.step == 0)
        // The link comes up as 0x0041: every packet naming the link names 0x0041 from then on.
        let answers = try Self.feed(
            &replay,
            [
                "040f0400014320", "043e1f0a00410000016d06ee2c22f10000000000000000000000000c000000900100",
                "0413050141000100", "024120070003000400030502",
                "0413050141000100", "02412012000e000400110601000500001806000d000118",
                "0413050141000100", "0241201000" + "1700040009152800022900209b7f3e1c",
            ])
        #expect(answers == [.waiting, .send, .waiting, .send, .waiting, .send, .waiting, .waiting])
        #expect(replay.packets[1].prefix(3) == [0x02, 0x41, 0x00])
        #expect(replay.packets[4] == [0x01, 0x06, 0x04, 0x03, 0x41, 0x00, 0x13])
        // The second fragment completes the PDU; the Disconnect's answer ends the handshake.
        #expect(try Self.feed(&replay, ["0241100b005a2b9d0e4f3a7c0cf0b1e5"]) == [.send])
        #expect(try Self.feed(&replay, ["040f0400010604", "04050400410016"]) == [.waiting, .done])
        #expect(replay.step == 0)
    }

    @Test("short packets may wait while an ATT response or a connect's or disconnect's status is awaited")
    func whenShortPacketsMayWait() throws {
        var replay = HandshakeReplay(try HandshakeScript.recorded(Self.traffic))
        var seen: [Bool] = [replay.shortPacketsCanWait]
        for hex in [
            "040f0400014320", "043e1f0a00410000016d06ee2c22f10000000000000000000000000c000000900100",
            "0413050141000100", "024120070003000400030502",
        ] {
            _ = try Self.feed(&replay, [hex])
            seen.append(replay.shortPacketsCanWait)
        }
        // The connection request's status, then the link: the MTU request's response is awaited from then on.
        #expect(seen == [true, false, true, true, true])
        _ = try Self.feed(
            &replay,
            [
                "02412012000e000400110601000500001806000d000118", "0241201000" + "1700040009152800022900209b7f3e1c",
                "0241100b005a2b9d0e4f3a7c0cf0b1e5",
            ])
        #expect(replay.shortPacketsCanWait, "the Disconnect's status")
        _ = try Self.feed(&replay, ["040f0400010604"])
        #expect(!replay.shortPacketsCanWait, "its status is in; Disconnection Complete comes alone")
        #expect(try Self.feed(&replay, ["04050400410016"]) == [.done])
        #expect(replay.shortPacketsCanWait, "the next handshake's connection request")
    }

    @Test("an answer that is not the recorded one stops the replay with what came instead")
    func wrongAnswers() throws {
        let script = try HandshakeScript.recorded(Self.traffic)
        var refused = HandshakeReplay(script)
        #expect(throws: BenchmarkError.self) { try Self.feed(&refused, ["040f040c014320"]) }
        var failed = HandshakeReplay(script)
        #expect(throws: BenchmarkError.self) {
            try Self.feed(&failed, ["043e1f0a3e410000016d06ee2c22f10000000000000000000000000c000000900100"])
        }
        var error = HandshakeReplay(script)
        do {
            _ = try Self.feed(
                &error,
                [
                    "043e1f0a00410000016d06ee2c22f10000000000000000000000000c000000900100",
                    "024120090005000400010200000a",
                ])
            Issue.record("an Error Response where an MTU response was recorded went unnoticed")
        } catch {
            #expect(error.description.contains("ATT opcode 0x01, not 0x03"))
        }
        var dropped = HandshakeReplay(script)
        #expect(throws: BenchmarkError.self) {
            try Self.feed(
                &dropped,
                ["043e1f0a00410000016d06ee2c22f10000000000000000000000000c000000900100", "04050400410008"])
        }
    }
}
