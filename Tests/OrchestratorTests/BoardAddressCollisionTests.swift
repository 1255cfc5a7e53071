import BLECore
import DeviceProfiles
import Foundation
import Testing

@testable import Orchestrator

/// Two board models at one address cannot both be on the air (the virtual farm traps on the second): the rig
/// loader finds every such pair first, derived addresses included, and names both boards' places.
@Suite("Board addresses on virtual and rootcanal rigs")
struct BoardAddressCollisionTests {
    static func rig(radio: String = "virtual", _ boards: [String]) -> String {
        (["rig: t", "radio: \(radio)", "boards:"] + boards + ["suites: [discovery]"]).joined(separator: "\n")
    }

    @Test("an explicit address equal to another board's derived one is a conflict at the explicit one")
    func explicitMeetsDerived() {
        let derived = Profile.hrm.modelAddress(forBoard: "b1")
        let issues = RigTesting.issues(
            Self.rig([
                "  - id: b1", "    profile: hrm", "  - id: b2", "    profile: hrm",
                "    virtual: {address: \(derived)}",
            ]))
        #expect(issues.count == 1)
        #expect(issues.first?.code == .conflict)
        #expect(issues.first?.location.lineAndColumn == "8:24")
        #expect(
            issues.first?.message
                == "board 'b2' would be at \(derived) (written in virtual.address), the address of board 'b1' "
                + "(derived from its id, at 4:9); two boards cannot share an address: give one of them another address")
    }

    @Test("a derived address equal to an earlier explicit one is a conflict at the derived board's id")
    func derivedMeetsExplicit() {
        let derived = Profile.espPoint.modelAddress(forBoard: "esp-late")
        let issues = RigTesting.issues(
            Self.rig([
                "  - {id: esp-early, profile: esp-point, virtual: {address: \(derived)}}",
                "  - {id: esp-late, profile: esp-point}",
            ]))
        #expect(issues.map(\.location.lineAndColumn) == ["5:10"])
        #expect(issues.first?.message.contains("board 'esp-late' would be at \(derived) (derived from its id)") == true)
        #expect(issues.first?.message.contains("board 'esp-early' (written in virtual.address, at 4:") == true)
        #expect(issues.first?.message.contains("a virtual.address of its own, or another id") == true)
    }

    @Test("on rootcanal, addresses equal but for the random static bits collide on the air")
    func rootcanalAirAddresses() {
        let issues = RigTesting.issues(
            Self.rig(
                radio: "{kind: rootcanal}",
                [
                    "  - {id: a, profile: hrm, virtual: {address: 04:00:00:00:00:01}}",
                    "  - {id: b, profile: hrm, virtual: {address: C4:00:00:00:00:01}}",
                ]))
        #expect(issues.count == 1)
        #expect(issues.first?.message.contains("on the air as C4:00:00:00:00:01 (random)") == true)
        let virtual = RigTesting.issues(
            Self.rig([
                "  - {id: a, profile: hrm, virtual: {address: 04:00:00:00:00:01}}",
                "  - {id: b, profile: hrm, virtual: {address: C4:00:00:00:00:01}}",
            ]))
        #expect(virtual.isEmpty, "on the virtual farm they are two addresses: \(virtual)")
    }

    @Test("hardware rigs match boards on the air; their ids derive nothing")
    func hardwareRigsDeriveNothing() {
        let issues = RigTesting.issues(
            Self.rig(
                radio: "{kind: hci, transport: \"tcp:127.0.0.1:6402\"}",
                ["  - {id: a, profile: hrm, match: {name: A}}", "  - {id: b, profile: hrm, match: {name: B}}"]))
        #expect(issues.isEmpty, "\(issues)")
    }

    @Test("a 10,000-board rig loads without trapping and names every colliding pair")
    func tenThousandBoards() throws {
        let ids = (0..<10_000).map { "board-\($0)" }
        var seen: [DeviceAddress: String] = [:]
        var expected = 0
        for id in ids {
            let address = Profile.hrm.modelAddress(forBoard: id)
            if seen[address] != nil { expected += 1 } else { seen[address] = id }
        }
        // A 24-bit hash over 10,000 ids: collisions are all but certain (about three expected).
        #expect(expected > 0)
        let issues = RigTesting.issues(Self.rig(ids.map { "  - {id: \($0), profile: hrm}" }))
        #expect(issues.count == expected)
        #expect(issues.allSatisfy { $0.code == .conflict && $0.message.contains("derived from its id") })
    }
}
