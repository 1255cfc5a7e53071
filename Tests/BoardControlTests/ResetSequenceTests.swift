import BenchCore
import Testing

@Suite("Reset sequences in esptool's grammar")
struct ResetSequenceTests {
    /// esptool 5.x `reset.py`, written out in its own custom-reset grammar (and bench-facts' transcription).
    static let esptool: [(ResetPreset, ResetKind, String)] = [
        (.esp32Classic, .bootloader, "D0|R1|W0.1|D1|R0|W0.05|D0"),
        (.esp32UnixTight, .bootloader, "U0,0|U1,1|U0,1|W0.1|U1,0|W0.05|U0,0|D0"),
        (.esp32USBJTAG, .bootloader, "R0|D0|W0.1|D1|R0|W0.1|R1|D0|R1|W0.1|D0|R0"),
        (.esp32USBJTAG, .run, "R1|W0.2|R0|W0.2"),
        (.esp32Classic, .run, "R1|W0.1|R0"),
        (.esp32UnixTight, .run, "R1|W0.1|R0"),
        (.hardReset, .run, "R1|W0.1|R0"),
        (.runOnly, .run, "R1|W0.1|R0"),
        (.dtrPulse, .run, "D1|W0.1|D0"),
    ]

    @Test("each preset is esptool's sequence, step for step", arguments: 0..<esptool.count)
    func presetsAreEsptoolsSequences(_ index: Int) throws {
        let (preset, kind, text) = Self.esptool[index]
        let parsed = try ResetSequence(parsing: text)
        #expect(preset.sequence(for: kind) == parsed)
        #expect(preset.plan(for: kind) == .lines(parsed))
        #expect(parsed.description == text)
    }

    @Test func theTouchIsNoLineSequenceAndDoesOnlyTheBootloader() {
        #expect(ResetPreset.arduino1200Touch.plan(for: .bootloader) == .touch1200)
        #expect(ResetPreset.arduino1200Touch.plan(for: .run) == nil)
        #expect(ResetPreset.hardReset.plan(for: .bootloader) == nil)
    }

    @Test func waitsAreSecondsToTheMicrosecond() throws {
        let sequence = try ResetSequence(parsing: "W0.000001|W2|W.5|W0.25")
        #expect(sequence.steps == [.wait(.microseconds(1)), .wait(.seconds(2)), .wait(.milliseconds(500)),
            .wait(.milliseconds(250))])
        #expect(sequence.duration == .microseconds(2_750_001))
        #expect(sequence.description == "W0.000001|W2|W0.5|W0.25")
    }

    static let malformed: [(String, Int, String)] = [
        ("", 1, "a reset sequence needs at least one command, such as R1|W0.1|R0"),
        ("D0||R1", 4, "empty command (two '|' in a row, or one at an end)"),
        ("D0|R1|", 7, "empty command (two '|' in a row, or one at an end)"),
        ("D0|X1", 4, "unknown command 'X' (expected D, R, U or W)"),
        ("D0|r1", 4, "unknown command 'r' (expected D, R, U or W; commands are upper case)"),
        ("D2", 2, "DTR is set with 0 or 1, found '2'"),
        ("D0|R", 5, "RTS needs 0 or 1 after it"),
        ("U1", 2, "U sets both lines: write U<dtr>,<rts> such as U1,0, found 'U1'"),
        ("R0|U1,x", 7, "RTS is set with 0 or 1, found 'x'"),
        ("W0.1s", 5, "W takes seconds as a decimal number such as W0.1, found '0.1s'"),
        ("W", 2, "W takes seconds as a decimal number such as W0.1, found ''"),
        ("R1|W0|R0", 5, "a wait must be longer than 0 s"),
        ("R1|W100|R0", 5, "W100 waits longer than 60 s; W counts seconds (W0.1 is 100 ms)"),
        ("W0.0000001", 2, "W is precise to the microsecond, found '0.0000001'"),
        ("D0 |R1", 2, "DTR is set with 0 or 1, found '0 '"),
    ]

    @Test("a malformed sequence names its column", arguments: 0..<malformed.count)
    func malformedSequencesNameTheirColumn(_ index: Int) {
        let (text, column, message) = Self.malformed[index]
        #expect(throws: ResetSequenceError(column: column, message)) { try ResetSequence(parsing: text) }
    }

    @Test func aWiringIsAPresetNoneOrItsOwnRunSequence() throws {
        #expect(try ResetWiring(parsing: "esp32-usb-jtag") == .preset(.esp32USBJTAG))
        #expect(try ResetWiring(parsing: "none") == ResetWiring.none)
        let own = try ResetWiring(parsing: "R1|W0.25|R0")
        #expect(own.kinds == [.run])
        #expect(own.plan(for: .run) == .lines(try ResetSequence(parsing: "R1|W0.25|R0")))
        #expect(own.plan(for: .bootloader) == nil)
        #expect(throws: ResetSequenceError.self) { try ResetWiring(parsing: "esp32") }
    }
}
