import Radios
import Testing

@Suite struct RootcanalTestChannelCodecTests {
    typealias Codec = RootcanalTestChannelCodec

    @Test("commands are a length byte and the name, an argument count, then length-prefixed text arguments")
    func commandVectors() throws {
        #expect(try Codec.Command("list").encoded() == [4] + Array("list".utf8) + [0])
        #expect(
            try Codec.Command("set_timer_period", ["1"]).encoded()
                == [16] + Array("set_timer_period".utf8) + [1, 1] + Array("1".utf8))
        #expect(
            try Codec.Command("add_device_to_phy", ["12", "1"]).encoded()
                == [17] + Array("add_device_to_phy".utf8) + [2, 2] + Array("12".utf8) + [1] + Array("1".utf8))
    }

    @Test(
        "a command decodes to itself, and its bytes re-encode byte for byte",
        arguments: [
            Codec.Command("list"), Codec.Command("set_timer_period", ["1"]),
            Codec.Command("del_device_from_phy", ["3", "1"]), Codec.Command("x", [""]),
            Codec.Command(String(repeating: "n", count: 255), [String(repeating: "a", count: 255)]),
        ])
    func commandRoundTrip(command: Codec.Command) throws {
        let bytes = try command.encoded()
        let decoded = try #require(Codec.Command.decode(bytes))
        #expect(decoded.command == command)
        #expect(decoded.consumed == bytes.count)
        #expect(try decoded.command.encoded() == bytes)
        for cut in 0..<bytes.count { #expect(Codec.Command.decode(bytes.prefix(cut)) == nil) }
    }

    @Test("a name or argument over 255 bytes cannot be framed")
    func oversizeIsRefused() {
        #expect(throws: RootcanalError.self) { try Codec.Command(String(repeating: "n", count: 256)).encoded() }
        #expect(throws: RootcanalError.self) { try Codec.Command("a", [String(repeating: "v", count: 256)]).encoded() }
        #expect(throws: RootcanalError.self) { try Codec.Command("a", Array(repeating: "1", count: 256)).encoded() }
    }

    static let replies = [Codec.greeting, "set timer period to 1", "", " Devices: \r\n Phys: \r\n  0:BR_EDR:  \r\n"]

    @Test("replies are a u32 little-endian length and text, however the bytes arrive")
    func repliesDripFedAndCoalesced() throws {
        let stream = Self.replies.flatMap(Codec.encodeReply)
        #expect(Codec.encodeReply("ab") == [2, 0, 0, 0, 0x61, 0x62])
        var whole = Codec.ReplyDecoder()
        #expect(try whole.feed(stream) == Self.replies)
        var dripped = Codec.ReplyDecoder()
        var collected: [String] = []
        for byte in stream { collected += try dripped.feed([byte]) }
        #expect(collected == Self.replies)
        var chunked = Codec.ReplyDecoder()
        collected = []
        for start in stride(from: 0, to: stream.count, by: 7) {
            collected += try chunked.feed(stream[start..<min(start + 7, stream.count)])
        }
        #expect(collected == Self.replies)
    }

    @Test("a reply length no test channel sends means the framing is lost")
    func absurdLengthIsAnError() {
        var decoder = Codec.ReplyDecoder()
        #expect(throws: RootcanalError.self) { try decoder.feed([0x6C, 0x69, 0x73, 0x74]) }
    }
}
