import Testing

@testable import Orchestrator

/// One line per argument, so a case reads like the file it stands for and line numbers are easy to count.
private func yaml(_ lines: String...) -> String { lines.joined(separator: "\n") + "\n" }

/// A valid rig, to which a case appends its mistake.
private let validRig = yaml("rig: t", "radio: virtual", "boards: [{id: b1, profile: hrm}]", "suites: [discovery]")

/// Anchors `l0` … `l<levels-1>`, each a list of ten aliases of the one before: 10^levels nodes when expanded.
private func aliasBomb(levels: Int) -> String {
    var lines = ["l0: &l0 [x, x, x, x, x, x, x, x, x, x]"]
    for level in 1..<levels {
        let aliases = Array(repeating: "*l\(level - 1)", count: 10).joined(separator: ", ")
        lines.append("l\(level): &l\(level) [\(aliases)]")
    }
    return lines.joined(separator: "\n") + "\n"
}

/// A file over one of the loader's limits, and where the single issue must be.
struct OversizedRig: Sendable, CustomTestStringConvertible {
    let name: String
    let yaml: String
    let at: String
    let message: String
    var testDescription: String { name }
}

private let nodeLimitMessage =
    "the file is too large: it passes 100000 YAML nodes here (an alias counts every node it repeats)"
private let depthLimitMessage = "the file is too large: nested deeper than 64 levels here"

private let oversizedRigs: [OversizedRig] = [
    OversizedRig(
        name: "a billion laughs after a duplicate key and unknown keys",
        yaml: validRig + "rig: u\n" + aliasBomb(levels: 9), at: "10:45", message: nodeLimitMessage),
    OversizedRig(
        name: "one alias of a big anchor too many",
        yaml: validRig + "big: &big [" + Array(repeating: "1", count: 60_000).joined(separator: ", ") + "]\n"
            + "again: *big\n",
        at: "6:8", message: nodeLimitMessage),
    OversizedRig(
        name: "a huge list written out",
        yaml: validRig + "huge:\n" + String(repeating: "  - x\n", count: 100_010), at: "99989:5",
        message: nodeLimitMessage),
    OversizedRig(
        name: "flow lists nested 70 deep",
        yaml: validRig + "deep: " + String(repeating: "[", count: 70)
            + String(repeating: "]", count: 70) + "\n", at: "5:70", message: depthLimitMessage),
    OversizedRig(
        name: "flow lists nested 5000 deep, past libyaml's own limit",
        yaml: validRig + "deep: " + String(repeating: "[", count: 5_000) + String(repeating: "]", count: 5_000) + "\n",
        at: "5:70", message: depthLimitMessage),
    OversizedRig(
        name: "block lists nested 100 deep",
        yaml: validRig + "deep:\n" + (1...100).map { String(repeating: " ", count: $0) + "-\n" }.joined(),
        at: "69:65", message: depthLimitMessage),
    OversizedRig(
        name: "aliases that nest a shallow anchor deep",
        yaml: validRig + "a: &a " + String(repeating: "[", count: 40) + String(repeating: "]", count: 40) + "\n"
            + "b: " + String(repeating: "[", count: 40) + "*a" + String(repeating: "]", count: 40) + "\n",
        at: "6:44", message: depthLimitMessage),
]

@Suite struct RigLimitsTests {
    @Test(arguments: oversizedRigs)
    func aFileOverTheLimitsGivesOneIssueAndNothingElse(_ rig: OversizedRig) throws {
        let issues = RigTesting.issues(rig.yaml)
        try #require(issues.count == 1, "\(issues.prefix(5).map(\.description))")
        #expect(issues[0].code == .tooLarge)
        #expect(issues[0].location.lineAndColumn == rig.at)
        #expect(issues[0].message == rig.message)
    }

    @Test func aBigButLegalFileLoads() throws {
        // 9001 nodes written out and nine aliases of them: about 90000 nodes, under the limit.
        let ones = Array(repeating: "1", count: 9_000).joined(separator: ", ")
        let aliases = Array(repeating: "*n", count: 9).joined(separator: ", ")
        let rig = try RigTesting.load(
            yaml(
                "rig: t", "radio: virtual", "boards: [{id: b1, profile: hrm}]",
                "suites: [{discovery: {n: &n [\(ones)], m: [\(aliases)]}}]"))
        #expect(rig.suites[0].options["m"]?.elements?.map { $0.elements?.count } == Array(repeating: 9_000, count: 9))
    }

    @Test(arguments: [
        ("esp-point", "'esp-point'"),
        (String(repeating: "a", count: 40), "'" + String(repeating: "a", count: 40) + "'"),
        (
            String(repeating: "a", count: 41),
            "'" + String(repeating: "a", count: 26) + "…" + String(repeating: "a", count: 13) + "'"
        ),
        (
            "/dev/serial/by-id/usb-Silicon_Labs_CP2102_USB_to_UART_Bridge_Controller_0001-if00-port0",
            "'/dev/serial/by-id/usb-Sili…01-if00-port0'"
        ),
        ("tab\there", "'tab\\there'"), ("two\nlines", "'two\\nlines'"), ("bell\u{7}", "'bell\\u{7}'"),
        ("rtl\u{202E}txt", "'rtl\\u{202E}txt'"), ("line\u{2028}sep", "'line\\u{2028}sep'"), ("été", "'été'"),
    ])
    func valuesQuotedInMessagesAreShortAndVisible(_ value: String, _ quoted: String) {
        #expect(RigWording.quoted(value) == quoted)
    }

    @Test func aLongValueFullOfEscapesStaysShort() {
        let quoted = RigWording.quoted(String(repeating: "\u{1}", count: 10_000))
        #expect(quoted.count <= RigWording.quoteLimit + 2)
        #expect(quoted.hasPrefix("'\\u{1}") && quoted.contains("…"))
    }

    static let long = String(repeating: "x", count: 10_000)

    @Test(arguments: [
        yaml("rig: t", "radio: virtual", "boards: [{id: b1, profile: \(long)}]", "suites: [discovery]"),
        yaml("rig: \(long)", "radio: virtual", "boards: [{id: b1, profile: hrm}]", "suites: [discovery]"),
        yaml("rig: t", "radio: virtual", "boards: [{id: \(long), profile: hrm}]", "suites: [discovery]"),
        yaml(
            "rig: t", "radio: virtual", "boards: [{id: b1, profile: hrm, match: {address: \(long)}}]",
            "suites: [discovery]"),
        yaml(
            "rig: t", "radio: {kind: hci, transport: \"tcp:\(long)\"}",
            "boards: [{id: b1, profile: hrm, match: {name: n}}]", "suites: [discovery]"),
        yaml("rig: t", "radio: \(long)", "boards: [{id: b1, profile: hrm}]", "suites: [discovery]"),
        yaml("rig: t", "radio: virtual", "boards: [{id: b1, profile: hrm}]", "suites: [\(long)]"),
        yaml("rig: t", "radio: virtual", "boards: [{id: b1, profile: hrm}]", "suites: [discovery]", "\(long): 1"),
        yaml(
            "rig: t", "radio: virtual", "boards: [{id: b1, profile: hrm}]", "suites: [discovery]", "\(long): 1",
            "\(long): 2"),
        yaml(
            "rig: t", "radio: virtual", "boards: [{id: b1, profile: hrm, serial: {port: \(long), baud: 1\(long)}}]",
            "suites: [discovery]"),
        yaml(
            "rig: t", "radio: virtual", "boards: [{id: b1, profile: hrm, virtual: {battery_percent: 0000\(long)}}]",
            "suites: [discovery]"),
    ])
    func aTenKilobyteValueGivesOneShortLine(_ text: String) throws {
        let issues = RigTesting.issues(text)
        #expect(!issues.isEmpty)
        for issue in issues {
            #expect(issue.message.count < 200, "\(issue.message.prefix(300))")
            #expect(!issue.message.contains("\n"))
        }
    }

    @Test func controlCharactersInAValueAreShownAsEscapes() throws {
        let issues = RigTesting.issues(
            yaml(
                "rig: t", "radio: virtual", "boards: [{id: b1, profile: \"esp\\tpoint\\u202E\"}]", "suites: [discovery]"
            ))
        #expect(
            issues.map(\.message) == [
                "unknown profile 'esp\\tpoint\\u{202E}' (expected esp-point, nano33-ble-sense or hrm)"
            ])
    }

    @Test(arguments: [
        (
            "a: \"\\xZZ\"\n", "1:7",
            "YAML syntax error: did not find the expected hexadecimal number (while parsing a quoted scalar that "
                + "starts at 1:4)"
        ),
        ("%YAML 2.0\n---\na: 1\n", "1:1", "YAML syntax error: found a %YAML directive for a version other than 1.x"),
        ("%YAML 1.2\na: 1\n", "2:1", "YAML syntax error: did not find the '---' that starts a document"),
    ])
    func libyamlProblemsAreWordedForRigAuthors(_ text: String, _ at: String, _ message: String) throws {
        let issues = RigTesting.issues(text)
        #expect(issues.map(\.location.lineAndColumn) == [at])
        #expect(issues.map(\.message) == [message])
    }

    @Test func libyamlsNestingLimitIsReportedInOurWords() {
        let failure = YAMLParseFailure(
            stage: .parser, problem: "Maximum nesting level reached, set with yaml_set_max_nest_level())",
            mark: YAMLMark(line: 2, column: 5), byteOffset: 0, value: -1, context: "while parsing",
            contextMark: YAMLMark(line: 2, column: 5))
        let issue = RigNode.syntaxIssue(failure, depth: 0, file: "f.yaml", bytes: Array("a:\n  b: c\n".utf8))
        #expect(issue.description == "f.yaml:2:5: the file is too large: nested deeper than 64 levels here")
    }
}
