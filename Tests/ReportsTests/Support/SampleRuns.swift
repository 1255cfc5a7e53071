import BLECore
import Foundation
import Reports

/// Fixed run logs the tests render. Changing one changes the golden files: re-record them with
/// `BLERIG_RECORD_GOLDEN=1 swift test --filter ReportsTests` and read the diff.
enum SampleRuns {
    static func at(_ milliseconds: Int) -> RigInstant { RigInstant(sinceOrigin: .milliseconds(milliseconds)) }

    static let runStarted = RunEvent.RunStarted(
        runID: "20250301-093000-42", rig: "bench-a", rigFile: "rigs/bench.yaml", seed: 42, radio: "virtual",
        wallStart: Date(timeIntervalSince1970: 1_740_821_400.25), host: "ci-runner-3")

    static let connect = MeasuredValue(
        metric: "handshake.connect_ms", statistic: .p95, value: 31.5, unit: .milliseconds,
        definition: "connect request → link up")

    static func ready(_ statistic: Statistic, _ value: Double, unit: MetricUnit = .milliseconds) -> MeasuredValue {
        MeasuredValue(
            metric: "handshake.ready_ms", statistic: statistic, value: value, unit: unit,
            definition: "connect request → MTU exchanged, services discovered, notifications enabled")
    }

    /// Two boards: passes with numbers, a threshold failure, a skip, an error, a check that never finished,
    /// logs at several levels, transitions and attachments.
    static let bench: [RunEvent] = [
        .runStarted(runStarted),
        .boardStarted(
            .init(
                board: "esp-01", profile: "esp-point",
                identity: [.address("24:0A:C4:12:1A:2B"), .advertisedName("ESP-Point-1a2b"), .firmware("1.4.2")],
                at: at(0))),
        .boardStarted(
            .init(
                board: "esp-02", profile: "esp-point",
                identity: [.address("24:0A:C4:12:1A:2C"), .serialPort("/dev/ttyUSB1")], at: at(5))),
        .transition(.init(board: "esp-01", at: at(0), from: "off", to: "booting", reason: "power on")),
        .log(.init(board: "esp-01", at: at(412), level: .info, source: "console", message: "ESP-IDF v5.1 boot\r\n")),
        .transition(.init(board: "esp-01", at: at(480), from: "booting", to: "ready", reason: "boot banner seen")),
        .testStarted(.init(board: "esp-01", suite: "handshake", test: "ready", at: at(500))),
        .testStarted(.init(board: "esp-02", suite: "handshake", test: "ready", at: at(505))),
        .log(.init(board: "esp-02", at: at(700), level: .warning, source: "central", message: "MTU exchange retried")),
        .testFinished(
            .init(
                board: "esp-01", suite: "handshake", test: "ready", started: at(500), duration: .milliseconds(1_250),
                outcome: .passed,
                measurements: [connect, ready(.p50, 80.25), ready(.p95, 98.4), ready(.count, 200, unit: .count)])),
        .testFinished(
            .init(
                board: "esp-02", suite: "handshake", test: "ready", started: at(505), duration: .milliseconds(2_004),
                outcome: .exceeded(ready(.p95, 212.4), limit: 150, details: "200 connections; 14 above 150 ms"),
                measurements: [ready(.p50, 120), ready(.p95, 212.4), ready(.count, 200, unit: .count)])),
        .testFinished(
            .init(
                board: "esp-01", suite: "ota", test: "resume", started: at(1_800), duration: .zero,
                outcome: .skipped(reason: "profile esp-point has no OTA service in this firmware"))),
        .testStarted(.init(board: "esp-02", suite: "ota", test: "resume", at: at(2_600))),
        .testFinished(
            .init(
                board: "esp-02", suite: "ota", test: "resume", started: at(2_600), duration: .milliseconds(900),
                outcome: .error(message: "lease on esp-02 lost", details: "serial port /dev/ttyUSB1 disappeared"))),
        .testStarted(.init(board: "esp-01", suite: "soak", test: "hold", at: at(3_000))),
        .log(
            .init(board: "esp-01", at: at(3_500), level: .error, source: "central", message: "link lost\nreason 0x08")),
        .attachment(.init(board: "esp-01", kind: .btsnoop, path: "captures/esp-01.btsnoop", at: at(3_600))),
        .attachment(.init(board: "esp-02", kind: .console, path: "console/esp-02.log", at: at(3_600))),
        .boardFinished(.init(board: "esp-02", at: at(3_700))),
        .runFinished(.init(at: at(4_000), wallDuration: .milliseconds(1_234))),
    ]

    /// Strings that break naive XML writers, in every place a string can go.
    static let nastyStrings = [
        "a & b < c > d \"quoted\" 'single'",
        "end ]]> of CDATA",
        "bell \u{7} nul \u{0} esc \u{1B}[31m del \u{7F} c1 \u{85}\u{9F}",
        "tab\there, line\nbreak, cr\rlf\r\n",
        "non-ASCII: Grüße, 温度, emoji 🔋, combining e\u{301}",
        "nonchars \u{FFFE}\u{FFFF} kept neighbour \u{FFFD}",
        "<!-- not a comment --> <![CDATA[ not cdata ]]> &amp; already",
    ]

    static var nasty: [RunEvent] {
        let s = nastyStrings
        let board = "nasty-\(s[0])"
        let value = MeasuredValue(
            metric: "m\(s[1])", statistic: Statistic(s[3]), value: .nan, unit: MetricUnit(s[4]), definition: s[2])
        return [
            .runStarted(
                .init(
                    runID: s[0], rig: s[1], rigFile: s[2], seed: nil, radio: s[3],
                    wallStart: Date(timeIntervalSince1970: 0),
                    host: s[4])),
            .boardStarted(
                .init(board: board, profile: s[5], identity: s.map { IdentityField(key: $0, value: $0) }, at: at(0))),
            .log(.init(board: board, at: at(1), level: LogLevel(rawValue: s[6]), source: s[0], message: s[2])),
            .log(.init(board: board, at: at(2), level: .critical, source: s[3], message: s[1])),
            .transition(.init(board: board, at: at(3), from: s[4], to: s[5], reason: s[6])),
            .testFinished(
                .init(
                    board: board, suite: s[1], test: s[2], started: at(4), duration: .milliseconds(1),
                    outcome: .failed(message: s[3], details: s[1]), measurements: [value])),
            .testFinished(
                .init(
                    board: board, suite: s[4], test: s[5], started: at(5), duration: .milliseconds(1),
                    outcome: .error(message: s[6], details: s[2]))),
            .testFinished(
                .init(
                    board: board, suite: s[0], test: s[6], started: at(6), duration: .milliseconds(1),
                    outcome: .skipped(reason: s[3]))),
            .attachment(.init(board: board, kind: .init(s[1]), path: s[2], at: at(7))),
            .boardFinished(.init(board: board, at: at(8), state: s[6], measurements: [value])),
        ]
    }

    /// Board events with no run around them: a log whose front was cut off.
    static let headless: [RunEvent] = [
        .log(.init(board: "nano-01", at: at(10), level: .info, source: "console", message: "boot")),
        .testFinished(
            .init(
                board: "nano-01", suite: "discovery", test: "advertises", started: at(20), duration: .milliseconds(30),
                outcome: .passed)),
    ]
}
