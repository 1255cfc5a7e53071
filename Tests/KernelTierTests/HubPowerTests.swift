import Foundation
import Orchestrator
import Testing

/// One boot for the hub tests: dummy_hcd's root hub with g_serial's gadget on port 1 (dummy_hub_session.sh):
/// the port cut and restored through sysfs, then with `blerig power gadget off|on|cycle`.
actor HubSession {
    static let shared = HubSession()
    static let cycles = 3

    struct Outcome: Sendable {
        let run: Guest.Run
        let folder: String

        func file(_ name: String) -> String {
            (try? String(contentsOfFile: "\(folder)/\(name)", encoding: .utf8)) ?? ""
        }
    }

    /// port_events.py's line for one off/on cycle.
    struct Cycle: Decodable {
        let gone_s: Double?
        let back_s: Double?
        let off_action_s: Double?
        let on_action_s: Double?
        let off_rc: Int?
        let on_rc: Int?
        let action_rc: Int?
        let action_s: Double?
        let back: String?
        let error: String?
    }

    private var session: Task<Outcome, any Error>?

    func outcome() async throws -> Outcome {
        if session == nil { session = Task { try await Self.run() } }
        return try await session!.value
    }

    private static func run() async throws -> Outcome {
        let folder = Guest.folder("dummy-hub")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let run = try await Guest().run(
            "\(KernelTierEnvironment.scripts)/guest/dummy_hub_session.sh \(folder) \(cycles) '\(BlerigCommands.power)'",
            folder: folder)
        guard run.status == 0 else {
            throw KernelTierFailure("the hub session failed: \(run)\n\(run.consoleTail)")
        }
        print("kernel-tier dummy-hub: boot \(run.bootSeconds ?? -1) s, session \(run.commandSeconds ?? -1) s")
        return Outcome(run: run, folder: folder)
    }

    static func cycles(_ prefix: String, in folder: String) throws -> [Cycle] {
        try (1...cycles).map { index in
            let data = try Data(contentsOf: URL(filePath: "\(folder)/\(prefix)-\(index).json"))
            return try JSONDecoder().decode(Cycle.self, from: data)
        }
    }

    static func summary(_ cycles: [Cycle]) -> String {
        let gone = cycles.compactMap(\.gone_s).map(ms).joined(separator: ", ")
        let back = cycles.compactMap(\.back_s).map(ms).joined(separator: ", ")
        return "power-off → device gone: \(gone); power-on → device back: \(back)"
    }
}

extension KernelTier {
    @Suite struct HubPowerTests {
        /// Writing 1 to the port's `disable` file cuts the port: the gadget's ttyACM0 disappears; 0 restores it and
        /// the kernel enumerates the gadget again.
        @Test func dummyHcdsRootHubPortCutBySysfsDropsTheDeviceAndRestoringItBringsItBack() async throws {
            let outcome = try await HubSession.shared.outcome()
            let hub = (try? String(contentsOfFile: "\(outcome.folder)/hub.txt", encoding: .utf8)) ?? ""
            let cycles = try HubSession.cycles("sysfs", in: outcome.folder)
            print("kernel-tier dummy_hcd sysfs disable (\(hub.split(separator: "\n").joined(separator: "; "))): "
                + HubSession.summary(cycles))
            #expect(hub.contains("hub=usb"), "\(hub)")
            for (index, cycle) in cycles.enumerated() {
                #expect(cycle.error == nil, "cycle \(index + 1): \(cycle.error ?? "")")
                #expect(cycle.back == "/dev/ttyACM0", "cycle \(index + 1) came back as \(cycle.back ?? "nothing")")
                // The cut is immediate; enumeration takes a fraction of a second even under TCG.
                #expect((cycle.gone_s ?? .infinity) < 2, "cycle \(index + 1)")
                #expect((cycle.back_s ?? .infinity) < 5, "cycle \(index + 1)")
            }
        }

        /// `blerig power gadget off` cuts the port and returns once the device has left the bus; `on` restores it and
        /// the kernel enumerates the gadget again; `cycle` does both; `status` reads the port back each time.
        @Test func blerigPowerCutsAndRestoresTheGadgetsPort() async throws {
            let outcome = try await HubSession.shared.outcome()
            let cycles = try HubSession.cycles("blerig", in: outcome.folder)
            let logs = ["power-off.log", "power-on.log", "power-cycle.log", "power-status.log"].map {
                "\($0):\n\(outcome.file($0))"
            }.joined(separator: "\n")
            // blerig's own account: off waits for the device to leave the bus, on for it to come back.
            let offTimes = Self.times(outcome.file("power-off.log"), after: "hub 1 port 1 off in ")
            let onTimes = Self.times(outcome.file("power-on.log"), after: "device 1-1 on the bus ")
            print("kernel-tier blerig power, as blerig timed it: power-off → device gone \(offTimes); "
                + "power-on → device back \(onTimes)")
            print("kernel-tier blerig power, from each command's start (a blerig process under TCG): "
                + HubSession.summary(cycles))
            #expect(offTimes.count == HubSession.cycles && onTimes.count == HubSession.cycles, "\(logs)")
            for (index, cycle) in cycles.enumerated() {
                #expect(cycle.error == nil, "cycle \(index + 1): \(cycle.error ?? "")\n\(logs)")
                #expect(cycle.off_rc == 0 && cycle.on_rc == 0, "cycle \(index + 1)\n\(logs)")
                #expect(cycle.back == "/dev/ttyACM0", "cycle \(index + 1)")
                #expect((cycle.back_s ?? .infinity) < 5, "cycle \(index + 1)")
            }
            let data = try Data(contentsOf: URL(filePath: "\(outcome.folder)/blerig-cycle.json"))
            let cycle = try JSONDecoder().decode(HubSession.Cycle.self, from: data)
            print("kernel-tier blerig power cycle --off-for 500ms: gone \(cycle.gone_s.map(ms) ?? "-") after it started "
                + "back \(cycle.back_s.map(ms) ?? "-") after it left, command \(cycle.action_s.map(ms) ?? "-"); blerig: "
                + outcome.file("power-cycle.log").split(separator: "\n").prefix(2).joined(separator: "; "))
            #expect(cycle.error == nil, "\(cycle.error ?? "")\n\(logs)")
            #expect(cycle.action_rc == 0, "\(logs)")
            #expect((cycle.back_s ?? 0) >= 0.5, "the port was off for less than --off-for")
            // Every status read back: the port enabled, the gadget enumerated behind it.
            let statuses = outcome.file("power-status.log").split(separator: "\n").filter { $0.hasPrefix("hub 1 port 1:") }
            #expect(statuses.count == HubSession.cycles + 1, "\(logs)")
            #expect(statuses.allSatisfy { $0.contains("enabled") && $0.contains("device 1-1 present") }, "\(logs)")
            #expect(outcome.file("power-cycle.log").contains("device 1-1 on the bus"), "\(logs)")
        }

        /// `blerig discover` on the guest finds the gadget's ttyACM0 and the root hub port it hangs on, and writes a
        /// rig that loads, whose power binding `blerig power` then switches.
        @Test func blerigDiscoverWritesTheGadgetsPortAndHubPortIntoARigThatWorks() async throws {
            let outcome = try await HubSession.shared.outcome()
            let yaml = outcome.file("discovered.yaml")
            print("kernel-tier blerig discover wrote:\n\(yaml)")
            #expect(outcome.file("discover.rc").hasPrefix("0"), "\(outcome.file("discover.err"))")
            let rig = try RigFile.parse(yaml: yaml, file: "discovered.yaml", knownSuites: Campaign.suiteNames)
            let board = try #require(rig.boards.first, "\(yaml)")
            #expect(rig.boards.count == 1 && board.id == "board-01", "\(yaml)")
            #expect(board.serial?.port.hasSuffix("1-1:2.0") == true || board.serial?.port.hasPrefix("serial:") == true)
            #expect(board.power?.hub == "1" && board.power?.port == 1, "\(yaml)")
            #expect(yaml.contains("TODO: a profile blerig cannot guess from 0525:a4a7"), "\(yaml)")
            let power = outcome.file("discovered-power.log")
            #expect(outcome.file("discovered-power.rc").hasPrefix("0"), "\(power)")
            #expect(power.contains("hub 1 port 1: power on enabled device 1-1 present"), "\(power)")
        }

        /// The times blerig printed after `prefix` (`... off in 31.5 ms`), as they were written.
        static func times(_ log: String, after prefix: String) -> [String] {
            log.split(separator: "\n").compactMap { line in
                line.range(of: prefix).map { String(line[$0.upperBound...].prefix { $0 != " " }) + " ms" }
            }
        }
    }
}
