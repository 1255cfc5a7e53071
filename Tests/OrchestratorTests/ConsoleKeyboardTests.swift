import Benches
import Testing

@Suite("blerig console's keyboard")
struct ConsoleKeyboardTests {
    @Test func enterSendsTheLineAndEchoesIt() {
        var keyboard = ConsoleKeyboard()
        #expect(keyboard.feed(Array("st".utf8)) == [.echo([0x73]), .echo([0x74])])
        #expect(keyboard.feed(Array("atus\r\n".utf8)).filter { if case .send = $0 { true } else { false } }
            == [.send("status")])
    }

    @Test func crlfIsOneEnterAndBackspaceTakesBackAWholeCharacter() {
        var keyboard = ConsoleKeyboard()
        let actions = keyboard.feed(Array("pä\u{7F}air\r\nlog-fill 3\n".utf8))
        #expect(actions.compactMap { if case .send(let line) = $0 { line } else { nil } } == ["pair", "log-fill 3"])
        #expect(actions.contains(.echo([0x08, 0x20, 0x08])))
    }

    @Test func ctrlRightBracketLeavesAndWhatFollowsIsIgnored() {
        var keyboard = ConsoleKeyboard()
        #expect(keyboard.feed([0x61, ConsoleKeyboard.escape, 0x0A]) == [.echo([0x61]), .quit])
    }

    @Test func ctrlDLeavesOnlyOnAnEmptyLine() {
        var keyboard = ConsoleKeyboard()
        #expect(keyboard.feed([0x04]) == [.quit])
        var typing = ConsoleKeyboard()
        #expect(typing.feed([0x61, 0x04]) == [.echo([0x61])])
    }
}
