import BenchCore
import Foundation
import Testing

@testable import Orchestrator

/// One line per argument, so a case reads like the file it stands for and line numbers are easy to count.
private func yaml(_ lines: String...) -> String { lines.joined(separator: "\n") + "\n" }

/// A hardware board any radio can find.
private let board = "boards: [{id: b1, profile: hrm, match: {name: H}}]"

/// Radios: the old `radio:` forms, `max_links`, the `radios:` list, pinned boards and `after_run`, each mistake with
/// its single issue.
private let brokenRadios: [BrokenRig] = [
    BrokenRig(
        "tick_ms on a rootcanal blerig does not start",
        yaml(
            "rig: t", "radio: {kind: rootcanal, transport: \"tcp:127.0.0.1:6402\", tick_ms: 1}", board,
            "suites: [discovery]"),
        .invalidValue, at: "2:59",
        "'tick_ms' does not apply to a rootcanal radio that blerig does not start (set its tick through its test "
            + "channel)"),
    BrokenRig(
        "tick_ms on a virtual radio", yaml("rig: t", "radio: {kind: virtual, tick_ms: 5}", board, "suites: [discovery]"),
        .invalidValue, at: "2:24", "'tick_ms' does not apply to a virtual radio"),
    BrokenRig(
        "rootcanal beside hardware",
        yaml(
            "rig: t", "radios:", "  - {id: rc, kind: rootcanal}", "  - {id: hw, kind: bluez}", board,
            "suites: [discovery]"),
        .conflict, at: "4:5",
        "radio 'hw' is bluez but radio 'rc' (at 3:5) is rootcanal: a rig's radios are all virtual, all rootcanal or "
            + "all hardware, since board models are reachable only on their own air"),
    BrokenRig(
        "max_links zero", yaml("rig: t", "radio: {kind: virtual, max_links: 0}", board, "suites: [discovery]"),
        .outOfRange, at: "2:35", "'max_links' must be between 1 and 64, found 0"),
    BrokenRig(
        "max_links above 64",
        yaml("rig: t", "radios: [{id: r1, kind: virtual, max_links: 65}]", board, "suites: [discovery]"),
        .outOfRange, at: "2:45", "'max_links' must be between 1 and 64, found 65"),
    BrokenRig(
        "an id under radio",
        yaml("rig: t", "radio: {id: r1, kind: virtual}", board, "suites: [discovery]"),
        .invalidValue, at: "2:9",
        "'id' does not apply to 'radio', whose one radio is called 'radio' (to name radios, list them under "
            + "'radios')"),
    BrokenRig(
        "radio and radios together",
        yaml("rig: t", "radio: virtual", "radios: [{id: r1, kind: virtual}]", board, "suites: [discovery]"),
        .conflict, at: "3:1", "write 'radio' (one radio) or 'radios' (a list), not both; 'radio' is at 2:8"),
    BrokenRig(
        "neither radio nor radios", yaml("rig: t", board, "suites: [discovery]"), .missingKey, at: "1:1",
        "the rig file needs 'radio' (virtual, {kind: bluez, adapter: hci0} or {kind: hci, ...}), or a 'radios' list"),
    BrokenRig(
        "radios as a mapping", yaml("rig: t", "radios: {id: r1, kind: virtual}", board, "suites: [discovery]"),
        .wrongType, at: "2:9", "'radios' must be a list of radios such as [{id: r1, kind: virtual}], found a mapping"),
    BrokenRig(
        "no radios", yaml("rig: t", "radios: []", board, "suites: [discovery]"), .missingKey, at: "2:9",
        "'radios' must list at least one radio"),
    BrokenRig(
        "a radio written as its kind", yaml("rig: t", "radios: [virtual]", board, "suites: [discovery]"),
        .wrongType, at: "2:10", "radio 1 must be a mapping such as {id: r1, kind: virtual}, found 'virtual'"),
    BrokenRig(
        "a radio without id", yaml("rig: t", "radios: [{kind: virtual}]", board, "suites: [discovery]"),
        .missingKey, at: "2:10", "radio 1 needs 'id'"),
    BrokenRig(
        "a radio id with a space",
        yaml("rig: t", "radios: [{id: \"r 1\", kind: virtual}]", board, "suites: [discovery]"),
        .invalidValue, at: "2:15", "radio id 'r 1' may hold only letters, digits, '-' and '_' (1 to 64 of them)"),
    BrokenRig(
        "a misspelt radio key",
        yaml("rig: t", "radios: [{id: r1, kind: bluez, adaptor: hci1}]", board, "suites: [discovery]"),
        .unknownKey, at: "2:32", "unknown key 'adaptor' in radio 'r1' (did you mean 'adapter'?)"),
    BrokenRig(
        "two radios with one id",
        yaml(
            "rig: t", "radios:", "  - {id: r1, kind: virtual}", "  - {id: r1, kind: virtual}", board,
            "suites: [discovery]"),
        .conflict, at: "4:10", "duplicate radio id 'r1' (first at 3:10)"),
    BrokenRig(
        "radio ids that differ only in case",
        yaml(
            "rig: t", "radios:", "  - {id: r1, kind: virtual}", "  - {id: R1, kind: virtual}", board,
            "suites: [discovery]"),
        .conflict, at: "4:10",
        "radio id 'R1' differs only in case from 'r1' (at 3:10); ids must differ in more than case"),
    BrokenRig(
        "a virtual radio beside a hardware one",
        yaml(
            "rig: t", "radios:", "  - {id: sim, kind: virtual}", "  - {id: dongle, kind: bluez}", board,
            "suites: [discovery]"),
        .conflict, at: "4:5",
        "radio 'dongle' is bluez but radio 'sim' (at 3:5) is virtual: a rig's radios are all virtual, all rootcanal or all "
            + "hardware, since board models are reachable only on their own air"),
    BrokenRig(
        "hardware radios after a virtual one",
        yaml(
            "rig: t", "radios:", "  - {id: sim, kind: virtual}", "  - {id: a, kind: bluez, adapter: hci0}",
            "  - {id: b, kind: bluez, adapter: hci1}", "boards: [{id: b1, profile: hrm}]", "suites: [discovery]"),
        .conflict, at: "4:5",
        "radio 'a' is bluez but radio 'sim' (at 3:5) is virtual: a rig's radios are all virtual, all rootcanal or all "
            + "hardware, since board models are reachable only on their own air"),
    BrokenRig(
        "radios written without a value", yaml("rig: t", "radios:", board, "suites: [discovery]"), .missingKey,
        at: "2:1", "the rig file needs 'radios' to have a value"),
    BrokenRig(
        "one BlueZ adapter twice",
        yaml(
            "rig: t", "radios:", "  - {id: r1, kind: bluez}", "  - {id: r2, kind: bluez, adapter: hci0}", board,
            "suites: [discovery]"),
        .conflict, at: "4:36", "adapter hci0 is already used by radio 'r1' (at 3:5)"),
    BrokenRig(
        "an adapter through BlueZ and through its user channel",
        yaml(
            "rig: t", "radios:", "  - {id: r1, kind: bluez, adapter: hci1}",
            "  - {id: r2, kind: hci, transport: \"hci-user:1\"}", board, "suites: [discovery]"),
        .conflict, at: "4:36", "adapter hci1 is already used by radio 'r1' (at 3:36)"),
    BrokenRig(
        "one TCP transport twice",
        yaml(
            "rig: t", "radios:", "  - {id: r1, kind: hci, transport: \"tcp:Emu:6402\"}",
            "  - {id: r2, kind: hci, transport: \"tcp:emu:6402\"}", board, "suites: [discovery]"),
        .conflict, at: "4:36", "transport tcp:emu:6402 is already used by radio 'r1' (at 3:36)"),
    BrokenRig(
        "one serial controller at two baud rates",
        yaml(
            "rig: t", "radios:", "  - {id: r1, kind: hci, transport: \"uart:/dev/ttyACM0@1000000\"}",
            "  - {id: r2, kind: hci, transport: \"uart:/dev/ttyACM0\"}", board, "suites: [discovery]"),
        .conflict, at: "4:36", "serial device '/dev/ttyACM0' is already used by radio 'r1' (at 3:36)"),
    BrokenRig(
        "a board pinned to a radio the rig lacks",
        yaml(
            "rig: t", "radios: [{id: left, kind: virtual}, {id: right, kind: virtual}]", "boards:",
            "  - {id: b1, profile: hrm, radio: rigth}", "suites: [discovery]"),
        .invalidValue, at: "4:35", "unknown radio 'rigth' for board 'b1' (did you mean 'right'?)"),
    BrokenRig(
        "a board pinned to a radio in another case",
        yaml(
            "rig: t", "radios: [{id: r1, kind: virtual}]", "boards:", "  - {id: b1, profile: hrm, radio: R1}",
            "suites: [discovery]"),
        .invalidValue, at: "4:35", "unknown radio 'R1' for board 'b1' (did you mean 'r1'?)"),
    BrokenRig(
        "a board's radio written as a radio",
        yaml(
            "rig: t", "radio: virtual", "boards:", "  - {id: b1, profile: hrm, radio: {kind: virtual}}",
            "suites: [discovery]"),
        .wrongType, at: "4:35", "a board's 'radio' is the id of one of the rig's radios, found a mapping"),
    BrokenRig(
        "a board without match on radios of two kinds",
        yaml(
            "rig: t", "radios: [{id: a, kind: bluez}, {id: b, kind: hci, transport: \"tcp:h:1\"}]", "boards:",
            "  - {id: b1, profile: hrm}", "suites: [discovery]"),
        .missingKey, at: "4:5", "board 'b1' needs 'match' (a name or an address) to be found on a hardware radio"),
    BrokenRig(
        "a board without match pinned to an hci radio",
        yaml(
            "rig: t", "radios: [{id: a, kind: bluez}, {id: b, kind: hci, transport: \"tcp:h:1\"}]", "boards:",
            "  - {id: b1, profile: hrm, radio: b}", "suites: [discovery]"),
        .missingKey, at: "4:5", "board 'b1' needs 'match' (a name or an address) to be found on an hci radio"),
    BrokenRig(
        "a board pinned into a broken radio list",
        yaml("rig: t", "radios: virtual", "boards:", "  - {id: b1, profile: hrm, radio: r1}", "suites: [discovery]"),
        .wrongType, at: "2:9", "'radios' must be a list of radios such as [{id: r1, kind: virtual}], found 'virtual'"),
    BrokenRig(
        "after_run yes",
        yaml("rig: t", "radio: virtual", board, "suites: [discovery]", "after_run: yes"),
        .invalidValue, at: "5:12", "unknown after_run setting 'yes' (expected off or on)"),
]

@Suite struct RigRadiosTests {
    @Test(arguments: [
        ("virtual", RadioConfig.Kind.virtual, nil as Int?),
        ("{kind: virtual, max_links: 3}", .virtual, 3),
        ("bluez", .bluez(adapter: "hci0"), nil),
        ("{kind: bluez, adapter: hci1, max_links: 64}", .bluez(adapter: "hci1"), 64),
        ("{kind: hci, transport: \"tcp:127.0.0.1:6402\", max_links: 1}", .hci(.tcp(host: "127.0.0.1", port: 6402)), 1),
    ])
    func radioDescribesOneRadioCalledRadio(_ written: String, _ kind: RadioConfig.Kind, _ maxLinks: Int?) throws {
        let rig = try RigTesting.load(yaml("rig: t", "radio: \(written)", board, "suites: [discovery]"))
        #expect(rig.radios.count == 1)
        #expect(rig.radio == rig.radios[0])
        #expect(rig.radio.id == "radio")
        #expect(rig.radio.kind == kind)
        #expect(rig.radio.maxLinks == maxLinks)
        #expect(rig.radio.location.lineAndColumn == "2:8")
        #expect(rig.isVirtual == (kind == .virtual))
        #expect((rig.virtual != nil) == (kind == .virtual))
    }

    @Test func aRadiosListDescribesEachRadioWhereItIsWritten() throws {
        let rig = try RigTesting.load(
            yaml(
                "rig: bench",
                "radios:",
                "  - {id: left, kind: bluez, adapter: hci0, max_links: 4}",
                "  - id: right",
                "    kind: hci",
                "    transport: \"uart:/dev/ttyACM0@1000000\"",
                "boards:",
                "  - {id: b1, profile: hrm, match: {name: H1}, radio: right}",
                "  - {id: b2, profile: hrm, match: {name: H2}}",
                "suites: [discovery]"))
        #expect(rig.radios.map(\.id) == ["left", "right"])
        #expect(
            rig.radios.map(\.kind) == [.bluez(adapter: "hci0"), .hci(.uart(path: "/dev/ttyACM0", baud: 1_000_000, flowControl: .rtsCts))])
        #expect(rig.radios.map(\.maxLinks) == [4, nil])
        #expect(rig.radios.map(\.location.lineAndColumn) == ["3:5", "4:5"])
        #expect(rig.radio.id == "left")
        #expect(rig.radio(id: "right")?.kind == .hci(.uart(path: "/dev/ttyACM0", baud: 1_000_000, flowControl: .rtsCts)))
        #expect(!rig.isVirtual && rig.virtual == nil)
        #expect(rig.board(id: "b1")?.radio == "right")
        #expect(rig.board(id: "b1")?.radioLocation?.lineAndColumn == "8:54")
        #expect(rig.board(id: "b2")?.radio == nil && rig.board(id: "b2")?.radioLocation == nil)
    }

    @Test func aRigOfVirtualRadiosIsVirtualAndGetsTheFarmsDefaults() throws {
        let rig = try RigTesting.load(
            yaml(
                "rig: t", "radios: [{id: a, kind: virtual, max_links: 2}, {id: b, kind: virtual}]",
                "boards: [{id: b1, profile: hrm, radio: b}]", "suites: [discovery]"))
        #expect(rig.isVirtual)
        #expect(rig.virtual == VirtualFarmConfig(at: rig.radios[0].location))
        #expect(rig.boards[0].radio == "b")
    }

    @Test func aBoardMayPinTheOneRadioByItsDefaultID() throws {
        let rig = try RigTesting.load(
            yaml("rig: t", "radio: virtual", "boards: [{id: b1, profile: hrm, radio: radio}]", "suites: [discovery]"))
        #expect(rig.boards[0].radio == RadioConfig.defaultID)
    }

    @Test(arguments: [(nil as String?, AfterRun.off), ("off", .off), ("on", .on), ("On", .on), ("\"off\"", .off)])
    func afterRunLeavesBoardsOffUnlessToldOtherwise(_ written: String?, _ expected: AfterRun) throws {
        let afterRun = written.map { "after_run: \($0)" } ?? "# after_run not written"
        let rig = try RigTesting.load(yaml("rig: t", "radio: virtual", board, "suites: [discovery]", afterRun))
        #expect(rig.afterRun == expected)
    }

    @Test func theRadiosExampleCommentedInTheVirtualRigLoadsWhenUncommented() throws {
        let text = try String(contentsOfFile: RigTesting.path("rigs/virtual.yaml"), encoding: .utf8)
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let start = try #require(lines.firstIndex(of: "# radios:"))
        let example = lines[start...].prefix { $0 == "# radios:" || $0.hasPrefix("#   - ") }.map { $0.dropFirst(2) }
        let afterRun = try #require(lines.firstIndex { $0.hasPrefix("# after_run: ") })
        lines[afterRun].removeFirst(2)
        let radio = try #require(lines.firstIndex { $0.hasPrefix("radio: ") })
        lines.replaceSubrange(radio...radio, with: example.map(String.init))
        let rig = try RigTesting.load(lines.joined(separator: "\n"))
        #expect(rig.radios.map(\.id) == ["air-1", "air-2"])
        #expect(rig.radios.map(\.maxLinks) == [4, nil])
        #expect(rig.isVirtual && rig.afterRun == .off)
    }

    @Test func theShippedRootcanalRigServesItsBoardModels() throws {
        let rig = try RigTesting.load(
            String(contentsOf: RigTesting.repositoryRoot.appending(path: "rigs/rootcanal.yaml"), encoding: .utf8))
        #expect(rig.radios.map(\.kind) == [.rootcanal(nil, tickMilliseconds: 1)])
        #expect(rig.servesBoardModels && !rig.isVirtual)
        // Board models need no 'match': they are found by their own address.
        #expect(rig.boards.map(\.id) == ["esp-01", "nano-01", "hrm-01"])
        #expect(rig.boards.allSatisfy { $0.match == nil })
    }

    @Test func aRootcanalRadioMayNameOneAlreadyRunning() throws {
        let rig = try RigTesting.load(
            yaml(
                "rig: t", "radios:", "  - {id: a, kind: rootcanal, transport: \"tcp:127.0.0.1:6402\"}",
                "  - {id: b, kind: rootcanal, transport: \"tcp:127.0.0.1:6402\"}",
                "boards: [{id: b1, profile: hrm}]", "suites: [discovery]"))
        // Each connection to rootcanal's HCI port is a controller of its own: two radios may share the port.
        #expect(rig.radios.map(\.kind) == Array(repeating: .rootcanal(.tcp(host: "127.0.0.1", port: 6402), tickMilliseconds: 1), count: 2))
    }

    @Test(arguments: brokenRadios)
    func eachRadioMistakeIsReportedOnceWithItsExactPosition(_ broken: BrokenRig) throws {
        let issues = RigTesting.issues(broken.yaml)
        try #require(issues.count == 1, "\(issues.map(\.description))")
        #expect(issues[0].code == broken.code)
        #expect(issues[0].location.lineAndColumn == broken.at)
        #expect(issues[0].message == broken.message)
    }
}
