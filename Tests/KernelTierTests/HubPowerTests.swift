import Foundation
import Testing

/// One boot for the hub tests: dummy_hcd's root hub with g_serial's gadget on port 1 (dummy_hub_session.sh).
actor HubSession {
    static let shared = HubSession()
    static let cycles = 3

    struct Outcome: Sendable {
        let run: Guest.Run
        let folder: String
        let ranBlerig: Bool
    }

    /// port_events.py's line for one off/on cycle.
    struct Cycle: Decodable {
        let gone_s: Double?
        let back_s: Double?
        let off_action_s: Double?
        let on_action_s: Double?
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
        var guest = Guest()
        let ranBlerig = BlerigCommands.hasPower
        if ranBlerig {
            guest.environment = ["BLERIG_POWER": "1", "BLERIG_POWER_COMMAND": BlerigCommands.powerCommand]
        }
        let run = try await guest.run(
            "\(KernelTierEnvironment.scripts)/guest/dummy_hub_session.sh \(folder) \(cycles)", folder: folder)
        guard run.status == 0 else {
            throw KernelTierFailure("the hub session failed: \(run)\n\(run.consoleTail)")
        }
        print("kernel-tier dummy-hub: boot \(run.bootSeconds ?? -1) s, session \(run.commandSeconds ?? -1) s")
        return Outcome(run: run, folder: folder, ranBlerig: ranBlerig)
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

        @Test(.enabled(if: BlerigCommands.hasPower, BlerigCommands.missingReason("power")))
        func blerigPowerCutsAndRestoresTheGadgetsPort() async throws {
            let outcome = try await HubSession.shared.outcome()
            try #require(outcome.ranBlerig, "the session ran without blerig power")
            let cycles = try HubSession.cycles("blerig", in: outcome.folder)
            print("kernel-tier blerig power: " + HubSession.summary(cycles))
            for (index, cycle) in cycles.enumerated() {
                #expect(cycle.error == nil, "cycle \(index + 1): \(cycle.error ?? "")")
                #expect(cycle.back == "/dev/ttyACM0", "cycle \(index + 1)")
            }
        }
    }
}
