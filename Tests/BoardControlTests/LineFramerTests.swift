import Testing

@testable import BoardControl

@Suite("Console line framing")
struct LineFramerTests {
    static let stream = Array(
        "BOOT fw=1.4.2 bank=A reset=POWERON boot_id=5f3a9c01\r\nREADY name=x\n[10] I/OTA: ok\rlast\r\n".utf8)
    static let lines = [
        "BOOT fw=1.4.2 bank=A reset=POWERON boot_id=5f3a9c01", "READY name=x", "[10] I/OTA: ok", "last",
    ]

    @Test func crLfAndCrlfEachEndOneLine() {
        var framer = LineFramer()
        #expect(framer.feed(Self.stream) == Self.lines)
        #expect(framer.flush() == nil)
    }

    @Test func dripFedOneByteAtATimeGivesTheSameLines() {
        var framer = LineFramer()
        let lines = Self.stream.flatMap { framer.feed([$0]) }
        #expect(lines == Self.lines)
    }

    @Test("every split into two chunks gives the same lines", arguments: 0...stream.count)
    func everySplitGivesTheSameLines(_ cut: Int) {
        var framer = LineFramer()
        let lines = framer.feed(Self.stream[..<cut]) + framer.feed(Self.stream[cut...])
        #expect(lines == Self.lines)
    }

    /// Arrays and slices are walked as buffers; other sequences byte by byte. Both give the same lines.
    @Test func aSequenceWithoutContiguousStorageGivesTheSameLines() {
        let lazy = Self.stream.lazy.map { $0 }
        #expect(lazy.withContiguousStorageIfAvailable { _ in } == nil)
        var whole = LineFramer()
        #expect(whole.feed(lazy) == Self.lines)
        // A line and a CRLF cut across a sequence and a slice.
        let cut = Self.stream.firstIndex(of: 0x0D)! + 1
        var pieces = LineFramer()
        let lines = pieces.feed(AnySequence(Self.stream[..<cut])) + pieces.feed(Self.stream[cut...])
        #expect(lines == Self.lines)
        #expect(pieces.flush() == nil)
    }

    @Test func emptyLinesAreKeptAndAnUnfinishedLineWaits() {
        var framer = LineFramer()
        #expect(framer.feed(Array("\n\r\nhalf".utf8)) == ["", ""])
        #expect(framer.feed(Array(" line\n".utf8)) == ["half line"])
    }

    @Test func aLineWithoutBreaksIsCutAtTheLimit() {
        var framer = LineFramer()
        let lines = framer.feed([UInt8](repeating: 0x41, count: LineFramer.maximumLength * 2 + 3))
        #expect(lines.map(\.count) == [LineFramer.maximumLength, LineFramer.maximumLength])
        #expect(framer.flush() == "AAA")
    }

    @Test func bytesThatAreNotUTF8BecomeReplacementCharacters() {
        var framer = LineFramer()
        #expect(framer.feed([0x61, 0xFF, 0x62, 0x0A]) == ["a\u{FFFD}b"])
    }
}
