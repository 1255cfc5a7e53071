import Testing

import struct Orchestrator.SourceLocation

@testable import Orchestrator

/// The one-pass composer over libyaml's events: anchors, aliases, merge keys, duplicate keys, quoting and documents.
@Suite struct RigComposerTests {
    private func parse(_ text: String) throws(RigFileError) -> (RigNode, [RigFileIssue]) {
        let diagnostics = RigDiagnostics()
        let node = try RigNode.parse(yaml: text, file: "f.yaml", diagnostics: diagnostics)
        return (node, diagnostics.issues)
    }

    private func failure(_ text: String) -> RigFileError? {
        do {
            _ = try parse(text)
            return nil
        } catch {
            return error
        }
    }

    @Test func everyDuplicateKeyIsReportedInOnePassNamingItsFirstOccurrence() throws {
        // More duplicates than the old re-parse-per-key loader gave up at (1000).
        let keys = 1_500
        let text = (0..<keys).map { "key_\($0): first\n" }.joined() + (0..<keys).map { "key_\($0): second\n" }.joined()
        let (root, issues) = try parse(text)
        #expect(issues.count == keys)
        #expect(issues.allSatisfy { $0.code == .duplicateKey })
        for (index, issue) in issues.enumerated() {
            #expect(issue.location.lineAndColumn == "\(keys + index + 1):1")
            #expect(issue.message == "duplicate key 'key_\(index)' (first at \(index + 1):1)")
        }
        #expect(root.entries?.count == keys)
        #expect(root.entries?.allSatisfy { $0.value.scalar?.text == "first" } == true)
    }

    @Test func anAliasStandsForItsAnchorsNodeAsWritten() throws {
        let (root, issues) = try parse("a: &x {p: 1, q: [2, 3]}\nb: *x\n")
        #expect(issues.isEmpty)
        #expect(root["b"] == root["a"])
        #expect(root["b"]?["q"]?.location.lineAndColumn == "1:17")
    }

    @Test func anAliasedKeyIsLocatedAtTheAlias() throws {
        let (root, issues) = try parse("names: [&k port]\nserial:\n  *k : /dev/ttyUSB0\n  port: /dev/ttyUSB1\n")
        #expect(root["serial"]?["port"]?.scalar?.text == "/dev/ttyUSB0")
        #expect(root["serial"]?.entries?.first?.keyLocation.lineAndColumn == "3:3")
        #expect(issues.map(\.description) == ["f.yaml:4:3: duplicate key 'port' (first at 3:3)"])
    }

    @Test func anAnchorRedefinedLaterNamesTheLaterNode() throws {
        let (root, _) = try parse("a: &x 1\nb: &x 2\nc: *x\nd: &y [&y 3, *y]\n")
        #expect(root["c"]?.scalar?.text == "2")
        #expect(root["d"]?.elements?.map { $0.scalar?.text } == ["3", "3"])
    }

    @Test(arguments: [
        ("a: &x [1, *x]\n", "1:11", "YAML syntax error: alias '*x' is used inside the node it names"),
        ("a: &x {b: {c: *x}}\n", "1:15", "YAML syntax error: alias '*x' is used inside the node it names"),
        ("a: *nope\n", "1:4", "YAML syntax error: found undefined alias"),
        ("a: *x\nb: &x 1\n", "1:4", "YAML syntax error: found undefined alias"),
    ])
    func anAliasMustNameACompletedAnchorBeforeIt(_ text: String, _ at: String, _ message: String) throws {
        let error = try #require(failure(text))
        #expect(error.issues.count == 1)
        #expect(error.first.code == .syntax)
        #expect(error.first.location.lineAndColumn == at)
        #expect(error.first.message == message)
    }

    @Test func mergeKeysWorkThroughAliasesOfAliases() throws {
        let text = "base: &b {x: 1}\nmid: &m {<<: *b, y: 2}\nuse: {<<: *m, z: 3}\n"
        let (root, issues) = try parse(text)
        #expect(issues.isEmpty)
        #expect(root["use"]?.entries?.map(\.key) == ["z", "y", "x"])
    }

    @Test func twoMergeKeysInOneMappingBothMergeAndTheFirstWins() throws {
        let (root, issues) = try parse("a: &a {x: 1}\nb: &b {x: 2, y: 2}\nc:\n  <<: *a\n  <<: *b\n")
        #expect(issues.isEmpty)
        #expect(root["c"]?["x"]?.scalar?.text == "1")
        #expect(root["c"]?["y"]?.scalar?.text == "2")
    }

    @Test func aQuotedMergeKeyIsAnOrdinaryKey() throws {
        let (root, _) = try parse("a: &a {x: 1}\nb: {'<<': *a}\n")
        #expect(root["b"]?.entries?.map(\.key) == ["<<"])
    }

    @Test(arguments: [
        ("plain", false), ("'single'", true), ("\"double\"", true), ("!!str plain", true), ("|\n  literal", true),
        (">\n  folded", true), ("!!int 5", false), ("~", false),
    ])
    func scalarsRememberWhetherTheyWereQuoted(_ written: String, _ quoted: Bool) throws {
        let (root, _) = try parse("v: \(written)\n")
        #expect(root["v"]?.scalar?.isQuoted == quoted)
    }

    @Test(arguments: [
        ("", "1:1", RigFileIssue.Code.emptyFile, "the file holds no YAML document (it is empty)"),
        ("# nothing\n\n", "1:1", .emptyFile, "the file holds no YAML document (it is empty)"),
        ("a: 1\n---\nb: 2\n", "2:1", .syntax, "a second YAML document starts here; a rig file holds one"),
        ("a: 1\n--- b\n", "2:1", .syntax, "a second YAML document starts here; a rig file holds one"),
        ("a: 1\n...\nb: 2\n", "3:1", .syntax, "YAML syntax error: did not find the '---' that starts a document"),
    ])
    func aRigFileHoldsExactlyOneDocument(
        _ text: String, _ at: String, _ code: RigFileIssue.Code, _ message: String
    ) throws {
        let error = try #require(failure(text))
        #expect(error.issues.map(\.code) == [code])
        #expect(error.first.location.lineAndColumn == at)
        #expect(error.first.message == message)
    }

    @Test(arguments: [("rig: t\nra", "2:3"), ("rig: 'open", "1:11"), ("a: [1,", "1:7"), ("a:\n  - [", "2:6")])
    func theEndOfAFileWithoutALineBreakIsLocatedInsideIt(_ text: String, _ at: String) throws {
        // libyaml itself places it on the line below, which the file does not have.
        let error = try #require(failure(text))
        #expect(error.issues.map(\.location.lineAndColumn) == [at])
    }

    @Test func anExplicitlyStartedAndEndedDocumentIsOneDocument() throws {
        let (root, issues) = try parse("---\na: 1\n...\n")
        #expect(issues.isEmpty)
        #expect(root["a"]?.scalar?.text == "1")
    }

    @Test func aByteOrderMarkElsewhereThanTheStartIsNamed() throws {
        let error = try #require(failure("a: 1\n\u{FEFF}b: 2\n"))
        #expect(error.first.location.lineAndColumn == "2:2")
        #expect(error.first.message.hasSuffix("; remove the byte order mark (U+FEFF) from this line"))
    }

    @Test(arguments: [
        ("a: 1\r\nb:\r\n  - x\r\n", "3:5"), ("a: 1\rb:\r  - x\r", "3:5"), ("a: 1\u{85}b:\u{2028}  - x\n", "3:5"),
    ])
    func everyKindOfLineBreakCountsOneLine(_ text: String, _ at: String) throws {
        let (root, _) = try parse(text)
        #expect(root["b"]?.elements?.first?.location.lineAndColumn == at)
    }
}
