import BenchCore
import Testing

import struct Orchestrator.SourceLocation

@testable import Orchestrator

/// The YAML layer under the rig file: locations, duplicate keys, merge keys and typed scalars.
@Suite struct RigNodeTests {
    private func parse(_ text: String) throws(RigFileError) -> (RigNode, [RigFileIssue]) {
        let diagnostics = RigDiagnostics()
        let node = try RigNode.parse(yaml: text, file: "f.yaml", diagnostics: diagnostics)
        return (node, diagnostics.issues)
    }

    @Test func nodesKnowWhereTheyWereWritten() throws {
        let (root, issues) = try parse("a: 1\nb:\n  - x\n  - {c: 'y'}\n")
        #expect(issues.isEmpty)
        #expect(root.location == SourceLocation(file: "f.yaml", line: 1, column: 1))
        let b = try #require(root["b"])
        #expect(b.location.lineAndColumn == "3:3")
        #expect(b.elements?.map(\.location.lineAndColumn) == ["3:5", "4:5"])
        let c = try #require(b.elements?[1]["c"])
        #expect(c.scalar == RigNode.Scalar("y", isQuoted: true))
        #expect(c.location.lineAndColumn == "4:9")
        #expect(root.entries?.map(\.keyLocation.lineAndColumn) == ["1:1", "2:1"])
    }

    @Test(arguments: [
        ("a: 1\na: 2\n", ["2:1: duplicate key 'a' (first at 1:1)"]),
        ("k: 1\nk: 2\nk: 3\n", ["2:1: duplicate key 'k' (first at 1:1)", "3:1: duplicate key 'k' (first at 1:1)"]),
        ("\"a\": 1\n'a': 2\n", ["2:1: duplicate key 'a' (first at 1:1)"]),
        ("a: 1\r\nb: 2\r\na: 3\r\n", ["3:1: duplicate key 'a' (first at 1:1)"]),
        ("- été: 1\n  été: 2\n", ["2:3: duplicate key 'été' (first at 1:3)"]),
        ("x: {p: 1, q: 2, p: 3}\n", ["1:17: duplicate key 'p' (first at 1:5)"]),
    ])
    func duplicateKeysAreReportedAtTheSecondOccurrence(_ text: String, _ expected: [String]) throws {
        let (root, issues) = try parse(text)
        #expect(issues.map { "\($0.location.lineAndColumn): \($0.message)" } == expected)
        #expect(issues.allSatisfy { $0.code == .duplicateKey })
        #expect(!"\(root)".contains("\u{E000}"), "no placeholder key survives")
    }

    @Test func theFirstOfDuplicateKeysIsKept() throws {
        let (root, _) = try parse("a: first\na: second\nb: other\n")
        #expect(root.entries?.map(\.key) == ["a", "b"])
        #expect(root["a"]?.scalar?.text == "first")
    }

    @Test func mergeKeysFillInWhatIsNotWrittenAndEarlierSourcesWin() throws {
        let text = "base: &b {x: 1, y: 1}\nmore: &m {y: 2, z: 2}\nuse:\n  <<: [*b, *m]\n  x: 0\n"
        let (root, issues) = try parse(text)
        #expect(issues.isEmpty)
        let use = try #require(root["use"])
        #expect(use["x"]?.scalar?.text == "0")
        #expect(use["y"]?.scalar?.text == "1")
        #expect(use["z"]?.scalar?.text == "2")
        #expect(use["z"]?.location.lineAndColumn == "2:20", "a merged value keeps the place it was written")
    }

    @Test func aMergeKeyNeedsMappings() throws {
        let (_, issues) = try parse("a:\n  <<: 5\n")
        #expect(
            issues.map(\.description) == [
                "f.yaml:2:7: a merge key '<<' takes a mapping or a list of mappings, found '5'"
            ])
    }

    @Test func aByteOrderMarkDoesNotShiftColumns() throws {
        let (root, _) = try parse("\u{FEFF}a: 1\n")
        #expect(root["a"]?.location.lineAndColumn == "1:4")
    }

    @Test func columnsCountUnicodeScalars() throws {
        let (root, _) = try parse("é: [ü, v]\n")
        #expect(root["é"]?.elements?.map(\.location.lineAndColumn) == ["1:5", "1:8"])
    }

    @Test(arguments: [
        ("42", 42 as Int64?), ("-7", -7), ("+7", 7), ("0x1F", 31), ("0o17", 15), ("0b101", 5), ("1_000", 1_000),
        ("9223372036854775807", Int64.max), ("9223372036854775808", nil), ("4.0", nil), ("1e3", nil), ("--1", nil),
        ("0x", nil), ("_1", nil), ("", nil), ("twelve", nil),
    ])
    func integersReadAsYAMLWritesThem(_ text: String, _ expected: Int64?) {
        let node = RigNode.scalar(text, at: SourceLocation(file: "f", line: 1, column: 1))
        #expect((try? node.integer(for: "n", in: Int64.min...Int64.max)) == expected)
    }

    @Test(arguments: [
        ("7.5", 7.5 as Double?), ("15", 15), (".5", 0.5), ("1e3", 1_000), ("-0.25", -0.25), ("1_000.5", 1_000.5),
        ("nan", nil), ("inf", nil), (".inf", nil), ("infinity", nil), ("7,5", nil), ("", nil),
    ])
    func numbersAreFiniteDecimals(_ text: String, _ expected: Double?) {
        let node = RigNode.scalar(text, at: SourceLocation(file: "f", line: 1, column: 1))
        #expect((try? node.number(for: "n", in: -1e9...1e9)) == expected)
    }

    @Test(arguments: [
        ("true", false, true as Bool?), ("False", false, false), ("TRUE", false, true), ("yes", false, nil),
        ("no", false, nil), ("on", false, nil), ("true", true, nil),
    ])
    func onlyPlainTrueAndFalseAreBooleans(_ text: String, _ quoted: Bool, _ expected: Bool?) {
        let node = RigNode.scalar(text, quoted: quoted, at: SourceLocation(file: "f", line: 1, column: 1))
        #expect((try? node.bool(for: "b")) == expected)
    }

    @Test func stringsTakeAnyScalarButNotNull() throws {
        let at = SourceLocation(file: "f", line: 3, column: 9)
        #expect(try RigNode.scalar("1234", at: at).string(for: "name") == "1234")
        #expect(try RigNode.scalar("null", quoted: true, at: at).string(for: "name") == "null")
        let issue = try #require(throws: RigFileIssue.self) { try RigNode.scalar("~", at: at).string(for: "name") }
        #expect(issue.description == "f:3:9: 'name' must be a string, found nothing")
    }
}

@Suite struct RigWordingTests {
    @Test(arguments: [
        ("buad", ["port", "baud", "reset"], "baud" as String?),
        ("esp-pointt", ["esp-point", "nano33-ble-sense", "hrm"], "esp-point"),
        ("handshak", ["discovery", "handshake"], "handshake"),
        ("interval", ["interval_ms", "packets_per_event"], "interval_ms"),
        ("Seed", ["seed", "link"], "seed"),
        ("colour", ["rig", "radio", "boards"], nil),
        ("zzz", ["port", "baud"], nil),
        // Lengths 8 and 10: two insertions, within the 2 allowed; 8 and 11 is past them without being a prefix.
        ("abcdefgh", ["xabcdefghx"], "xabcdefghx"),
        ("abcdefgh", ["xabcdefghxy"], nil),
        (String(repeating: "port ", count: 200), ["port", "baud"], "port"),
        (String(repeating: "x", count: 1000), ["port", "baud"], nil),
    ])
    func suggestionsCatchTyposButNotStrangers(_ word: String, _ candidates: [String], _ expected: String?) {
        #expect(RigWording.suggestion(for: word, among: candidates) == expected)
    }

    @Test func listsReadAsEnglish() {
        #expect(RigWording.list(["a"]) == "a")
        #expect(RigWording.list(["a", "b"]) == "a or b")
        #expect(RigWording.list(["a", "b", "c"]) == "a, b or c")
        #expect(RigWording.list(["a", "b"], conjunction: "and") == "a and b")
    }

    @Test func numbersAreWrittenWithoutNeedlessDecimals() {
        #expect(RigWording.number(4_000) == "4000")
        #expect(RigWording.number(7.5) == "7.5")
        #expect(RigWording.number(0.625) == "0.625")
    }
}

/// A rig's `transport:` is read with the same grammar as `--radio` on the command line (HCITransportSpec, whose
/// own tests cover every form); here: that the rig uses it, and that its messages arrive located.
@Suite struct RadioTransportTests {
    @Test(arguments: [
        ("tcp:127.0.0.1:6402", HCITransportSpec.tcp(host: "127.0.0.1", port: 6402)),
        ("uart:/dev/ttyACM0", .uart(path: "/dev/ttyACM0", baud: 1_000_000, flowControl: .rtsCts)),
        ("uart:/dev/ttyUSB0@115200,flow=none", .uart(path: "/dev/ttyUSB0", baud: 115_200, flowControl: .none)),
        ("hci-user:1", .hciUser(adapter: 1)),
    ])
    func aRigReadsTransportsWithTheCommandLinesGrammar(_ text: String, _ expected: HCITransportSpec) throws {
        let rig = try RigTesting.load(
            "rig: t\nradio: {kind: hci, transport: \"\(text)\"}\nboards: [{id: b, profile: hrm, match: {name: H}}]\n"
                + "suites: [discovery]\n")
        #expect(rig.radio.kind == .hci(expected))
    }

    @Test(arguments: [
        (
            "localhost:6402",
            "transport 'localhost:6402': 'localhost' is not a transport; write tcp:HOST:PORT, "
                + "uart:PATH@BAUD[,flow=none] or hci-user:N"
        ),
        (
            "user:hci0",
            "transport 'user:hci0': 'user' is not a transport; write tcp:HOST:PORT, "
                + "uart:PATH@BAUD[,flow=none] or hci-user:N"
        ),
        ("tcp:host:0", "transport 'tcp:host:0': '0' is not a TCP port (1–65535)"),
    ])
    func malformedTransportsSayWhatIsWrongWhereItIsWritten(_ text: String, _ message: String) {
        let issues = RigTesting.issues(
            "rig: t\nradio: {kind: hci, transport: \"\(text)\"}\nboards: [{id: b, profile: hrm, match: {name: H}}]\n"
                + "suites: [discovery]\n")
        #expect(issues.map(\.message) == [message])
        #expect(issues.first?.location.lineAndColumn == "2:31")
    }

    /// Found by fuzz-rig (Fuzz/Corpus/rig/transport-scheme-with-line-break): the spec quoted the scheme, here
    /// "x\ny", raw, and the message took two lines.
    @Test func aSchemeWithALineBreakIsQuotedEscaped() {
        let issues = RigTesting.issues(
            "rig: t\nradio: {kind: hci, transport: \"x\\ny:1\"}\nboards: [{id: b, profile: hrm, match: {name: H}}]\n"
                + "suites: [discovery]\n")
        #expect(issues.map(\.message) == ["transport 'x\\ny:1' is not one of \(RadioConfig.transportForms)"])
        #expect(issues.first?.location.lineAndColumn == "2:31")
    }
}
