import BenchCore
import Testing

@testable import BoardControl

@Suite("Playing reset sequences on modem lines")
struct ResetPlayerTests {
    typealias Change = RecordingLines.Change

    /// What each preset does to the lines, from DTR and RTS both asserted (as a port is after open), and when.
    static let expected: [(ResetPreset, ResetKind, [Change])] = [
        (
            .esp32Classic, .bootloader,
            [
                Change(at: .zero, dtr: false, rts: true), Change(at: .zero, dtr: false, rts: true),
                Change(at: .milliseconds(100), dtr: true, rts: true),
                Change(at: .milliseconds(100), dtr: true, rts: false),
                Change(at: .milliseconds(150), dtr: false, rts: false),
            ]
        ),
        (
            .esp32UnixTight, .bootloader,
            [
                Change(at: .zero, dtr: false, rts: false), Change(at: .zero, dtr: true, rts: true),
                Change(at: .zero, dtr: false, rts: true), Change(at: .milliseconds(100), dtr: true, rts: false),
                Change(at: .milliseconds(150), dtr: false, rts: false),
                Change(at: .milliseconds(150), dtr: false, rts: false),
            ]
        ),
        (
            .hardReset, .run,
            [Change(at: .zero, dtr: true, rts: true), Change(at: .milliseconds(100), dtr: true, rts: false)]
        ),
        (
            .esp32USBJTAG, .run,
            [Change(at: .zero, dtr: true, rts: true), Change(at: .milliseconds(200), dtr: true, rts: false)]
        ),
        (
            .dtrPulse, .run,
            [Change(at: .zero, dtr: true, rts: true), Change(at: .milliseconds(100), dtr: false, rts: true)]
        ),
    ]

    @Test("each preset's line changes and delays", arguments: 0..<expected.count)
    func presetsChangeTheLinesWhenEsptoolDoes(_ index: Int) async throws {
        let (preset, kind, changes) = Self.expected[index]
        let clock = SteppingClock()
        let lines = RecordingLines(clock: clock)
        try await ResetSequencePlayer(clock: clock).play(try #require(preset.sequence(for: kind)), on: lines)
        #expect(lines.changes == changes)
        #expect(clock.now.sinceOrigin == preset.sequence(for: kind)?.duration)
    }

    @Test func bothLinesChangeInOneSetWithU() async throws {
        let clock = SteppingClock()
        let lines = RecordingLines(clock: clock, initial: [.dtr, .rts, .cts])
        try await ResetSequencePlayer(clock: clock).play(try ResetSequence(parsing: "U0,1"), on: lines)
        #expect(lines.changes == [Change(at: .zero, dtr: false, rts: true)])
        #expect(lines.reads == 1)
    }

    @Test func theUSBJTAGBootloaderSequenceTakesThreeTenths() async throws {
        let clock = SteppingClock()
        let lines = RecordingLines(clock: clock, initial: [])
        let sequence = try #require(ResetPreset.esp32USBJTAG.sequence(for: .bootloader))
        try await ResetSequencePlayer(clock: clock).play(sequence, on: lines)
        #expect(lines.changes.count == 9)
        #expect(lines.changes.map(\.at) == [.zero, .zero, .milliseconds(100), .milliseconds(100)]
            + [.milliseconds(200), .milliseconds(200), .milliseconds(200), .milliseconds(300), .milliseconds(300)])
        #expect(lines.changes.last == Change(at: .milliseconds(300), dtr: false, rts: false))
    }
}
