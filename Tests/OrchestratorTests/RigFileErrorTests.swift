import Foundation
import Testing

@testable import Orchestrator

/// One line per argument, so a case reads like the file it stands for and line numbers are easy to count.
private func yaml(_ lines: String...) -> String { lines.joined(separator: "\n") + "\n" }

/// Every kind of mistake, each in a file that has only that mistake, with the exact line and column expected.
private let brokenRigs: [BrokenRig] = [
    // YAML itself
    BrokenRig("empty file", "", .emptyFile, at: "1:1", "the file holds no YAML document (it is empty)"),
    BrokenRig(
        "only comments", yaml("# a rig, some day"), .emptyFile, at: "1:1",
        "the file holds no YAML document (it is empty)"),
    BrokenRig(
        "unclosed flow list", yaml("rig: [t", "radio: virtual"), .syntax, at: "2:6",
        "YAML syntax error: did not find expected ',' or ']' (while parsing a flow sequence that starts at 1:6)"),
    BrokenRig(
        "tab indentation", yaml("rig: t", "boards:", "\t- id: b1"), .syntax, at: "3:1",
        "YAML syntax error: found character that cannot start any token (while scanning for the next token that "
            + "starts at 3:1); YAML does not allow tabs for indentation"),
    BrokenRig(
        "misaligned key", yaml("rig: t", "radio: virtual", "boards:", "  - id: b1", "   profile: hrm"),
        .syntax, at: "5:4",
        "YAML syntax error: did not find expected '-' indicator (while parsing a block collection that starts at 4:3)"),
    BrokenRig(
        "unclosed quote", yaml("rig: 'unclosed"), .syntax, at: "2:1",
        "YAML syntax error: found unexpected end of stream (while scanning a quoted scalar that starts at 1:6)"),
    BrokenRig("undefined alias", yaml("rig: *nope"), .syntax, at: "1:6", "YAML syntax error: found undefined alias"),
    BrokenRig(
        "control character", "rig: t\u{07}\n", .syntax, at: "1:7",
        "YAML syntax error: control characters are not allowed (U+0007)"),
    BrokenRig(
        "two documents", yaml("rig: t", "---", "rig: u"), .syntax, at: "2:1",
        "a second YAML document starts here; a rig file holds one"),
    BrokenRig(
        "duplicate top-level key",
        yaml("rig: t", "rig: u", "radio: virtual", "boards: [{id: b1, profile: hrm}]", "suites: [discovery]"),
        .duplicateKey, at: "2:1", "duplicate key 'rig' (first at 1:1)"),
    BrokenRig(
        "duplicate key in a board",
        yaml(
            "rig: t", "radio: virtual", "boards:", "  - id: b1", "    profile: hrm", "    profile: esp-point",
            "suites: [discovery]"),
        .duplicateKey, at: "6:5", "duplicate key 'profile' (first at 5:5)"),

    // The document's shape
    BrokenRig(
        "top level is a list", yaml("- rig: t"), .wrongType, at: "1:1",
        "the rig file must be a mapping of keys to values, found a list"),
    BrokenRig(
        "unknown top-level key",
        yaml("rig: t", "radio: virtual", "boards: [{id: b1, profile: hrm}]", "suites: [discovery]", "colour: red"),
        .unknownKey, at: "5:1",
        "unknown key 'colour' in the rig file (expected rig, radio, radios, boards, virtual, suites, gates, "
            + "after_run, retries or rerun_failed)"),
    BrokenRig(
        "missing rig name", yaml("radio: virtual", "boards: [{id: b1, profile: hrm}]", "suites: [discovery]"),
        .missingKey, at: "1:1", "the rig file needs 'rig'"),
    BrokenRig(
        "rig name with a space",
        yaml("rig: bench a", "radio: virtual", "boards: [{id: b1, profile: hrm}]", "suites: [discovery]"),
        .invalidValue, at: "1:6",
        "rig name 'bench a' may hold only letters, digits, '.', '-' and '_' (1 to 64 of them)"),

    // radio
    BrokenRig(
        "unknown radio kind",
        yaml("rig: t", "radio: virtaul", "boards: [{id: b1, profile: hrm}]", "suites: [discovery]"),
        .invalidValue, at: "2:8", "unknown radio kind 'virtaul' (expected virtual, bluez, hci or rootcanal)"),
    BrokenRig(
        "radio as a list",
        yaml("rig: t", "radio: [virtual]", "boards: [{id: b1, profile: hrm}]", "suites: [discovery]"),
        .wrongType, at: "2:8",
        "'radio' must be a kind (virtual, bluez, hci or rootcanal) or a mapping such as {kind: bluez, adapter: hci0}, "
            + "found a list"),
    BrokenRig(
        "radio without kind",
        yaml("rig: t", "radio: {adapter: hci0}", "boards: [{id: b1, profile: hrm}]", "suites: [discovery]"),
        .missingKey, at: "2:8", "radio needs 'kind'"),
    BrokenRig(
        "hci radio without transport",
        yaml(
            "rig: t", "radio: {kind: hci}", "boards: [{id: b1, profile: hrm, match: {name: H}}]",
            "suites: [discovery]"),
        .missingKey, at: "2:8", "radio needs 'transport' (tcp:HOST:PORT, uart:/dev/PATH@BAUD[,flow=none] or hci-user:N)"
    ),
    BrokenRig(
        "hci transport without port",
        yaml(
            "rig: t", "radio: {kind: hci, transport: \"tcp:localhost\"}",
            "boards: [{id: b1, profile: hrm, match: {name: H}}]", "suites: [discovery]"),
        .invalidValue, at: "2:31", "transport 'tcp:localhost' has no port; write tcp:HOST:PORT, e.g. tcp:127.0.0.1:6402"
    ),
    BrokenRig(
        "bluez radio with a transport",
        yaml(
            "rig: t", "radio: {kind: bluez, transport: \"hci-user:0\"}",
            "boards: [{id: b1, profile: hrm, match: {name: H}}]", "suites: [discovery]"),
        .invalidValue, at: "2:22",
        "'transport' does not apply to a bluez radio (for blerig's own HCI host write kind: hci)"),
    BrokenRig(
        "bluez adapter name",
        yaml(
            "rig: t", "radio: {kind: bluez, adapter: wlan0}", "boards: [{id: b1, profile: hrm, match: {name: H}}]",
            "suites: [discovery]"),
        .invalidValue, at: "2:31", "'adapter' must be a BlueZ adapter name such as hci0, found 'wlan0'"),

    // boards
    BrokenRig(
        "boards as a mapping",
        yaml("rig: t", "radio: virtual", "boards: {id: b1}", "suites: [discovery]"),
        .wrongType, at: "3:9", "'boards' must be a list of boards, found a mapping"),
    BrokenRig(
        "no boards", yaml("rig: t", "radio: virtual", "boards: []", "suites: [discovery]"),
        .missingKey, at: "3:9", "'boards' must list at least one board"),
    BrokenRig(
        "unknown profile",
        yaml("rig: t", "radio: virtual", "boards:", "  - id: b1", "    profile: esp-pointt", "suites: [discovery]"),
        .invalidValue, at: "5:14", "unknown profile 'esp-pointt' (expected esp-point, nano33-ble-sense or hrm)"),
    BrokenRig(
        "missing profile", yaml("rig: t", "radio: virtual", "boards:", "  - id: b1", "suites: [discovery]"),
        .missingKey, at: "4:5", "board 'b1' needs 'profile'"),
    BrokenRig(
        "a board named like the bench's testsuite",
        yaml("rig: t", "radio: virtual", "boards:", "  - id: Bench", "    profile: hrm", "suites: [discovery]"),
        .invalidValue, at: "4:9",
        "board id 'Bench' is taken: junit.xml has testsuites named 'bench' and 'gates' beside the boards'"),
    BrokenRig(
        "missing id", yaml("rig: t", "radio: virtual", "boards:", "  - profile: hrm", "suites: [discovery]"),
        .missingKey, at: "4:5", "board 1 needs 'id'"),
    BrokenRig(
        "board id with a space",
        yaml("rig: t", "radio: virtual", "boards:", "  - {id: \"esp 01\", profile: hrm}", "suites: [discovery]"),
        .invalidValue, at: "4:10", "board id 'esp 01' may hold only letters, digits, '-' and '_' (1 to 64 of them)"),
    BrokenRig(
        "duplicate board id",
        yaml(
            "rig: t", "radio: virtual", "boards:", "  - {id: b1, profile: hrm}", "  - {id: b1, profile: esp-point}",
            "suites: [discovery]"),
        .conflict, at: "5:10", "duplicate board id 'b1' (first at 4:10)"),
    BrokenRig(
        "board ids that differ only in case",
        yaml(
            "rig: t", "radio: virtual", "boards:", "  - {id: esp-01, profile: hrm}", "  - {id: ESP-01, profile: hrm}",
            "suites: [discovery]"),
        .conflict, at: "5:10",
        "board id 'ESP-01' differs only in case from 'esp-01' (at 4:10); ids name report files such as "
            + "captures/<id>.btsnoop, which collide where case is ignored"),
    BrokenRig(
        "hardware rig board without match",
        yaml(
            "rig: t", "radio: {kind: bluez, adapter: hci0}", "boards:", "  - id: b1", "    profile: esp-point",
            "suites: [discovery]"),
        .missingKey, at: "4:5", "board 'b1' needs 'match' (a name or an address) to be found on a bluez radio"),
    BrokenRig(
        "empty match",
        yaml(
            "rig: t", "radio: virtual", "boards:", "  - id: b1", "    profile: hrm", "    match: {}",
            "suites: [discovery]"),
        .missingKey, at: "6:12", "match needs 'name' or 'address' (or both)"),
    BrokenRig(
        "malformed address",
        yaml(
            "rig: t", "radio: virtual", "boards:", "  - id: b1", "    profile: hrm", "    match: {address: 24:0A:C4}",
            "suites: [discovery]"),
        .invalidValue, at: "6:22",
        "'address' must be a device address such as 24:0A:C4:12:1A:2B (add /random for a random one), "
            + "found '24:0A:C4'"),
    BrokenRig(
        "serial as a string",
        yaml(
            "rig: t", "radio: virtual", "boards:", "  - id: b1", "    profile: hrm", "    serial: /dev/ttyUSB0",
            "suites: [discovery]"),
        .wrongType, at: "6:13", "serial must be a mapping of keys to values, found '/dev/ttyUSB0'"),
    BrokenRig(
        "misspelt serial key",
        yaml(
            "rig: t", "radio: virtual", "boards:", "  - id: b1", "    profile: esp-point",
            "    serial: {port: /dev/ttyUSB0, buad: 9600}", "suites: [discovery]"),
        .unknownKey, at: "6:34", "unknown key 'buad' in serial (did you mean 'baud'?)"),
    BrokenRig(
        "quoted baud",
        yaml(
            "rig: t", "radio: virtual", "boards:", "  - id: b1", "    profile: esp-point",
            "    serial: {port: /dev/ttyUSB0, baud: \"115200\"}", "suites: [discovery]"),
        .wrongType, at: "6:40",
        "'baud' must be an integer between 300 and 4000000, found the string \"115200\" (remove the quotes)"),
    BrokenRig(
        "unknown reset sequence",
        yaml(
            "rig: t", "radio: virtual", "boards:", "  - id: b1", "    profile: esp-point",
            "    serial: {port: /dev/ttyUSB0, reset: dtr}", "suites: [discovery]"),
        .invalidValue, at: "6:41",
        "'reset': unknown reset 'dtr' (expected esp32-classic, esp32-unix-tight, esp32-usb-jtag, hard-reset, "
            + "run-only, arduino-1200-touch, dtr-pulse, none, or a sequence such as \"R1|W0.1|R0\")"),
    BrokenRig(
        "reset sequence with an unknown command, at its column inside the quotes",
        yaml(
            "rig: t", "radio: virtual", "boards:", "  - id: b1", "    profile: esp-point",
            "    serial: {port: /dev/ttyUSB0, reset: \"D0|R1|W0.1|X1\"}", "suites: [discovery]"),
        .invalidValue, at: "6:53", "'reset': unknown command 'X' (expected D, R, U or W)"),
    BrokenRig(
        "reset sequence waiting minutes, at its column",
        yaml(
            "rig: t", "radio: virtual", "boards:", "  - id: b1", "    profile: esp-point",
            "    serial: {port: /dev/ttyUSB0, reset: R1|W100|R0}", "suites: [discovery]"),
        .invalidValue, at: "6:45", "'reset': W100 waits longer than 60 s; W counts seconds (W0.1 is 100 ms)"),
    BrokenRig(
        "serial port that is no path or USB name",
        yaml(
            "rig: t", "radio: virtual", "boards:", "  - id: b1", "    profile: esp-point",
            "    serial: {port: ttyUSB0}", "suites: [discovery]"),
        .invalidValue, at: "6:20",
        "'port': 'ttyUSB0' is no serial port: write a device path (/dev/serial/by-id/...), usb:1-1.4:1.0, "
            + "serial:SERIALNUMBER or id:VID:PID"),
    BrokenRig(
        "serial port shared",
        yaml(
            "rig: t", "radio: virtual", "boards:", "  - {id: b1, profile: hrm, serial: {port: /dev/ttyUSB0}}",
            "  - {id: b2, profile: hrm, serial: {port: /dev/ttyUSB0}}", "suites: [discovery]"),
        .conflict, at: "5:43", "serial port '/dev/ttyUSB0' is already used by board 'b1' (at 4:43)"),
    BrokenRig(
        "hub port shared",
        yaml(
            "rig: t", "radio: virtual", "boards:", "  - {id: b1, profile: hrm, power: {hub: 1-1.4, port: 2}}",
            "  - {id: b2, profile: hrm, power: {hub: 1-1.4, port: 2}}", "suites: [discovery]"),
        .conflict, at: "5:54", "hub 1-1.4 port 2 is already used by board 'b1' (at 4:54)"),
    BrokenRig(
        "hub port zero",
        yaml(
            "rig: t", "radio: virtual", "boards:", "  - {id: b1, profile: hrm, power: {hub: 1-1.4, port: 0}}",
            "suites: [discovery]"),
        .outOfRange, at: "4:54", "'port' must be between 1 and 255, found 0"),
    BrokenRig(
        "hub location",
        yaml(
            "rig: t", "radio: virtual", "boards:", "  - {id: b1, profile: hrm, power: {hub: usb1, port: 1}}",
            "suites: [discovery]"),
        .invalidValue, at: "4:41", "'hub' must be a USB hub location such as \"1-1.4\" (bus-port.port), found 'usb1'"),

    // a board's virtual settings
    BrokenRig(
        "advertising yes",
        yaml(
            "rig: t", "radio: virtual", "boards:", "  - id: b1", "    profile: hrm", "    virtual: {advertising: yes}",
            "suites: [discovery]"),
        .wrongType, at: "6:28", "'advertising' must be true or false, found 'yes'"),
    BrokenRig(
        "battery above 100",
        yaml(
            "rig: t", "radio: virtual", "boards:", "  - id: b1", "    profile: hrm",
            "    virtual: {battery_percent: 101}", "suites: [discovery]"),
        .outOfRange, at: "6:32", "'battery_percent' must be between 0 and 100, found 101"),
    BrokenRig(
        "advertising interval off the 0.625 ms grid",
        yaml(
            "rig: t", "radio: virtual", "boards:", "  - id: b1", "    profile: hrm",
            "    virtual: {adv_interval_ms: 100.1}", "suites: [discovery]"),
        .outOfRange, at: "6:32", "'adv_interval_ms' must be a multiple of 0.625 ms, found 100.1"),
    BrokenRig(
        "heart rate on an esp-point",
        yaml(
            "rig: t", "radio: virtual", "boards:", "  - id: b1", "    profile: esp-point",
            "    virtual: {heart_rate: {pattern: ramp}}", "suites: [discovery]"),
        .invalidValue, at: "6:15", "'heart_rate' applies only to hrm boards, not esp-point"),
    BrokenRig(
        "peak with a steady heart rate",
        yaml(
            "rig: t", "radio: virtual", "boards:", "  - id: b1", "    profile: hrm", "    virtual:",
            "      heart_rate: {pattern: steady, peak_bpm: 150}", "suites: [discovery]"),
        .invalidValue, at: "7:37",
        "'peak_bpm' has no effect with pattern steady (use ramp, spikes or sine, or remove it)"),
    BrokenRig(
        "peak below base",
        yaml(
            "rig: t", "radio: virtual", "boards:", "  - id: b1", "    profile: hrm", "    virtual:",
            "      heart_rate: {pattern: ramp, base_bpm: 120, peak_bpm: 100}", "suites: [discovery]"),
        .outOfRange, at: "7:60", "'peak_bpm' must be at least base_bpm (120), found 100"),
    BrokenRig(
        "firmware version with two parts",
        yaml(
            "rig: t", "radio: virtual", "boards:", "  - id: b1", "    profile: hrm", "    virtual: {firmware: 1.4}",
            "suites: [discovery]"),
        .invalidValue, at: "6:25", "'firmware' must be a version major.minor.patch such as 1.4.2, found '1.4'"),
    BrokenRig(
        "flash log settings on an hrm",
        yaml(
            "rig: t", "radio: virtual", "boards:", "  - id: b1", "    profile: hrm",
            "    virtual: {firmware: {log_capacity: 10}}", "suites: [discovery]"),
        .invalidValue, at: "6:26", "'log_capacity' applies only to esp-point boards, not hrm"),
    BrokenRig(
        "virtual address differs from match address",
        yaml(
            "rig: t", "radio: virtual", "boards:", "  - id: b1", "    profile: hrm",
            "    match: {address: 24:0A:C4:12:1A:2B}", "    virtual: {address: 24:0A:C4:12:1A:2C}",
            "suites: [discovery]"),
        .conflict, at: "7:24",
        "virtual address 24:0A:C4:12:1A:2C differs from match address 24:0A:C4:12:1A:2B; the central would not find "
            + "the board"),

    // the virtual farm
    BrokenRig(
        "interval below 7.5 ms",
        yaml(
            "rig: t", "radio: virtual", "boards: [{id: b1, profile: hrm}]", "virtual:", "  link: {interval_ms: 5}",
            "suites: [discovery]"),
        .outOfRange, at: "5:23", "'interval_ms' must be between 7.5 and 4000 ms, found 5"),
    BrokenRig(
        "interval off the 1.25 ms grid",
        yaml(
            "rig: t", "radio: virtual", "boards: [{id: b1, profile: hrm}]", "virtual:", "  link: {interval_ms: 16}",
            "suites: [discovery]"),
        .outOfRange, at: "5:23", "'interval_ms' must be a multiple of 1.25 ms, found 16"),
    BrokenRig(
        "fractional packets per event",
        yaml(
            "rig: t", "radio: virtual", "boards: [{id: b1, profile: hrm}]", "virtual:",
            "  link: {packets_per_event: 2.5}", "suites: [discovery]"),
        .wrongType, at: "5:29", "'packets_per_event' must be an integer between 1 and 32, found '2.5'"),
    BrokenRig(
        "unknown phy",
        yaml(
            "rig: t", "radio: virtual", "boards: [{id: b1, profile: hrm}]", "virtual:", "  link: {phy: 3M}",
            "suites: [discovery]"),
        .invalidValue, at: "5:15", "unknown phy '3M' (expected 1M, 2M or coded)"),
    BrokenRig(
        "supervision timeout off the 10 ms grid",
        yaml(
            "rig: t", "radio: virtual", "boards: [{id: b1, profile: hrm}]", "virtual:",
            "  link: {supervision_timeout_ms: 4005}", "suites: [discovery]"),
        .outOfRange, at: "5:34", "'supervision_timeout_ms' must be a multiple of 10 ms, found 4005"),
    BrokenRig(
        "supervision timeout within two intervals",
        yaml(
            "rig: t", "radio: virtual", "boards: [{id: b1, profile: hrm}]", "virtual:", "  link:",
            "    interval_ms: 100", "    supervision_timeout_ms: 200", "suites: [discovery]"),
        .outOfRange, at: "7:29",
        "'supervision_timeout_ms' must be more than (1 + latency) × interval_ms × 2 = 200 ms, found 200"),
    BrokenRig(
        "latency pushes the default timeout too low",
        yaml(
            "rig: t", "radio: virtual", "boards: [{id: b1, profile: hrm}]", "virtual:",
            "  link: {interval_ms: 1000, latency: 1}", "suites: [discovery]"),
        .outOfRange, at: "5:23",
        "'supervision_timeout_ms' must be more than (1 + latency) × interval_ms × 2 = 4000 ms, "
            + "found 4000 (the default)"),
    BrokenRig(
        "negative seed",
        yaml(
            "rig: t", "radio: virtual", "boards: [{id: b1, profile: hrm}]", "virtual: {seed: -1}",
            "suites: [discovery]"),
        .outOfRange, at: "4:17", "'seed' must be between 0 and 18446744073709551615, found -1"),
    BrokenRig(
        "seed beyond 64 bits",
        yaml(
            "rig: t", "radio: virtual", "boards: [{id: b1, profile: hrm}]", "virtual: {seed: 18446744073709551616}",
            "suites: [discovery]"),
        .outOfRange, at: "4:17", "'seed' must be between 0 and 18446744073709551615, found 18446744073709551616"),
    BrokenRig(
        "negative drop rate",
        yaml(
            "rig: t", "radio: virtual", "boards: [{id: b1, profile: hrm}]", "virtual:",
            "  faults: {drops_per_hour: -0.5}", "suites: [discovery]"),
        .outOfRange, at: "5:28", "'drops_per_hour' must be between 0 and 3600, found -0.5"),
    BrokenRig(
        "misspelt faults key",
        yaml(
            "rig: t", "radio: virtual", "boards: [{id: b1, profile: hrm}]", "virtual:",
            "  faults: {drop_per_hour: 1}", "suites: [discovery]"),
        .unknownKey, at: "5:12", "unknown key 'drop_per_hour' in faults (did you mean 'drops_per_hour'?)"),

    // suites
    BrokenRig(
        "unknown suite",
        yaml("rig: t", "radio: virtual", "boards: [{id: b1, profile: hrm}]", "suites: [discovery, handshak]"),
        .unknownSuite, at: "4:21", "unknown suite 'handshak' (did you mean 'handshake'?)"),
    BrokenRig(
        "suite nobody has",
        yaml("rig: t", "radio: virtual", "boards: [{id: b1, profile: hrm}]", "suites: [fuzzing]"),
        .unknownSuite, at: "4:10",
        "unknown suite 'fuzzing' (expected discovery, handshake, commands, notifications, soak, sync, ota, restore, "
            + "power, alerts or pairing)"),
    BrokenRig(
        "suite options not a mapping",
        yaml("rig: t", "radio: virtual", "boards: [{id: b1, profile: hrm}]", "suites: [{handshake: 20}]"),
        .wrongType, at: "4:22", "the options of suite 'handshake' must be a mapping, found '20'"),
    BrokenRig(
        "two suites in one entry",
        yaml("rig: t", "radio: virtual", "boards: [{id: b1, profile: hrm}]", "suites: [{handshake: {}, ota: {}}]"),
        .wrongType, at: "4:10", "a suite with options is a one-key mapping, {name: {option: value}}; found 2 keys"),
    BrokenRig(
        "suite selected twice",
        yaml("rig: t", "radio: virtual", "boards: [{id: b1, profile: hrm}]", "suites: [discovery, discovery]"),
        .conflict, at: "4:21", "duplicate suite 'discovery' (first at 4:10)"),
    BrokenRig(
        "no suites", yaml("rig: t", "radio: virtual", "boards: [{id: b1, profile: hrm}]", "suites: []"),
        .missingKey, at: "4:9", "'suites' must select at least one suite"),
    BrokenRig(
        "suites as a string",
        yaml("rig: t", "radio: virtual", "boards: [{id: b1, profile: hrm}]", "suites: discovery"),
        .wrongType, at: "4:9", "'suites' must be a list of suite names, found 'discovery'"),
]

@Suite struct RigFileErrorTests {
    @Test(arguments: brokenRigs)
    func eachMistakeIsReportedOnceWithItsExactPosition(_ broken: BrokenRig) throws {
        let issues = RigTesting.issues(broken.yaml)
        try #require(issues.count == 1, "\(issues.map(\.description))")
        let issue = issues[0]
        #expect(issue.code == broken.code)
        #expect(issue.location.lineAndColumn == broken.at)
        #expect(issue.message == broken.message)
        #expect(issue.description == "rig.yaml:\(broken.at): \(broken.message)")
    }

    @Test func theDescriptionIsOneLineWithTheFileLineAndColumn() throws {
        let text = yaml(
            "rig: t", "radio: virtual", "boards:", "  - id: b1", "    profile: esp-pointt",
            "suites: [discovery]")
        let error = try #require(throws: RigFileError.self) {
            try RigFile.parse(yaml: text, file: "rigs/bad.yaml", knownSuites: RigTesting.knownSuites)
        }
        #expect(
            error.description
                == "rigs/bad.yaml:5:14: unknown profile 'esp-pointt' (expected esp-point, nano33-ble-sense or hrm)")
        #expect(!error.description.contains("\n"))
    }

    @Test func everyMistakeInAFileIsCollectedInFileOrder() throws {
        let text = yaml(
            "rig: t",
            "radio: virtual",
            "boards:",
            "  - id: b1",
            "    profile: hrm",
            "    virtual: {battery_percent: 120}",
            "  - id: b1",
            "    profile: esp-pointt",
            "suits: [discovery]")
        let error = try #require(throws: RigFileError.self) { try RigTesting.load(text) }
        #expect(error.issues.map(\.location.lineAndColumn) == ["1:1", "6:32", "8:14", "9:1"])
        #expect(error.issues.map(\.code) == [.missingKey, .outOfRange, .invalidValue, .unknownKey])
        #expect(error.issues.last?.message == "unknown key 'suits' in the rig file (did you mean 'suites'?)")
        #expect(error.description == "rig.yaml:1:1: the rig file needs 'suites' (+3 more)")
        #expect(error.report.split(separator: "\n").count == 4)
    }

    @Test func duplicateKeysDoNotHideTheRestOfTheFile() throws {
        let text = yaml(
            "rig: t",
            "radio: virtual",
            "boards:",
            "  - {id: b1, profile: hrm, profile: nano33-ble-sense}",
            "suites: [discovery, discovery]",
            "suites: [ota]")
        let error = try #require(throws: RigFileError.self) { try RigTesting.load(text) }
        #expect(
            error.issues.map(\.description) == [
                "rig.yaml:4:28: duplicate key 'profile' (first at 4:14)",
                "rig.yaml:5:21: duplicate suite 'discovery' (first at 5:10)",
                "rig.yaml:6:1: duplicate key 'suites' (first at 5:1)",
            ])
    }

    @Test func aMissingFileIsReportedAgainstThePath() throws {
        let path = RigTesting.path("rigs/no-such-rig.yaml")
        let error = try #require(throws: RigFileError.self) {
            try RigFile.load(contentsOf: path, knownSuites: RigTesting.knownSuites)
        }
        #expect(error.first.code == .unreadableFile)
        #expect(error.first.location == .wholeFile(path))
        #expect(error.description == "\(path): no such file")
    }

    @Test func aDirectoryIsNotARigFile() throws {
        let path = URL(fileURLWithPath: try RigTesting.temporaryFile([])).deletingLastPathComponent().path
        let error = try #require(throws: RigFileError.self) {
            try RigFile.load(contentsOf: path, knownSuites: RigTesting.knownSuites)
        }
        #expect(error.description == "\(path): is a directory, not a YAML file")
    }

    @Test func bytesThatAreNotUTF8AreLocated() throws {
        let path = try RigTesting.temporaryFile(Array("rig: t\nradio: vi".utf8) + [0xFF] + Array("rtual\n".utf8))
        let error = try #require(throws: RigFileError.self) {
            try RigFile.load(contentsOf: path, knownSuites: RigTesting.knownSuites)
        }
        #expect(error.first.code == .unreadableFile)
        #expect(error.first.location.lineAndColumn == "2:10")
    }

    @Test func anEmptyFileOnDiskIsEmpty() throws {
        let path = try RigTesting.temporaryFile([])
        let error = try #require(throws: RigFileError.self) {
            try RigFile.load(contentsOf: path, knownSuites: RigTesting.knownSuites)
        }
        #expect(error.description == "\(path):1:1: the file holds no YAML document (it is empty)")
    }
}
