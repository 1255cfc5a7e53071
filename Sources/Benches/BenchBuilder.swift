import BLECore
import BenchCore
import DeviceProfiles
import Foundation
import IngestServer
import Orchestrator
import Radios
import VirtualFarm

/// The composition root: the one place that turns a rig file into a bench. It knows every bench implementation
/// (the virtual farm, blerig's HCI host on hardware controllers or rootcanal, the kernel's BlueZ stack, and
/// BoardControl's serial ports and hub ports for real boards), and the orchestrator knows none of them: it sees
/// ``BenchLauncher`` and the capability protocols only.
public struct BenchBuilder: BenchFactory {
    /// With `airs: per_radio`, how many airs are simulated at once: one per core this process may run on (more
    /// threads than cores only preempt each other while they hold the run's shared locks), unless
    /// `BLERIG_PARALLEL_AIRS=N` says N (for comparing a run on one thread with the same run on several, which must
    /// agree). nil: all of them.
    public var parallelAirs: Int?

    public init(parallelAirs: Int? = Self.parallelAirsFromEnvironment) { self.parallelAirs = parallelAirs }

    public func launcher(for rig: RigConfig, seed: UInt64) throws(CampaignError) -> any BenchLauncher {
        if rig.isVirtual {
            var configuration = Self.virtualConfiguration(rig, seed: seed)
            configuration.parallelAirs = parallelAirs
            return VirtualBenchLauncher(configuration)
        }
        // kind: bluez: the kernel's own stack beside bluetoothd.
        if rig.radios.contains(where: { if case .bluez = $0.kind { true } else { false } }) {
            return BlueZBenchLauncher(rig: rig)
        }
        // kind: hci and kind: rootcanal: blerig's own HCI host; on rootcanal the board models are served too.
        return HCIBenchLauncher(rig: rig, seed: seed, boards: Self.virtualConfiguration(rig, seed: seed).boards)
    }

    /// The HCI radio a campaign builds on `transport` (blerig's HCI host, its central on the host's executor, the
    /// campaign's link limit), for a benchmark that measures the campaign's own path.
    public static func campaignRadio(
        id: String, on transport: any HCITransport, clock: WallClock
    ) async throws(HCIStackError) -> HCIRadio {
        let maxLinks = HCIBenchLauncher.defaultMaxLinks
        return try await HCIBenchLauncher.radio(id: id, on: transport, maxLinks: maxLinks, clock: clock)
    }

    /// A Hummingbird ingest on 127.0.0.1 and a free port, for the `sync` suite on a wall-clock bench.
    public func startLocalIngest() async throws -> (any LocalIngest)? {
        try await IngestServer.start(host: "127.0.0.1", port: 0)
    }

    /// The virtual farm's configuration for a virtual rig: the link and faults of its `virtual:` block, one
    /// radio per rig radio (8 links unless `max_links` says otherwise), and each board's simulation settings and
    /// the reset wiring its `serial.reset` (or its profile's default) gives it.
    static func virtualConfiguration(_ rig: RigConfig, seed: UInt64) -> VirtualBenchConfiguration {
        let virtual = rig.virtual ?? VirtualFarmConfig(at: rig.location)
        var configuration = VirtualBenchConfiguration(
            seed: seed, link: virtual.link.parameters, faults: virtual.faults.linkFaults,
            radios: rig.radios.map {
                .init(id: $0.id, maxLinks: $0.maxLinks ?? VirtualBenchConfiguration.defaultMaxLinks)
            },
            boards: rig.boards.map { board in
                VirtualBenchConfiguration.Board(
                    id: board.id, profile: board.profile, settings: board.virtual.farmSettings,
                    resets: Self.resets(board), expectedName: board.match?.name, radio: board.radio)
            },
            // The campaign keeps its own horizon; this is the simulation's backstop.
            horizon: .seconds(10 * 366 * 24 * 3600))
        configuration.airs = virtual.airs == .perRadio ? .perRadio : .shared
        return configuration
    }

    public static var parallelAirsFromEnvironment: Int? {
        ProcessInfo.processInfo.environment["BLERIG_PARALLEL_AIRS"].flatMap { Int($0) }.flatMap { $0 > 0 ? $0 : nil }
            ?? MachineLoad.affinityCores
    }

    /// The resets a board's serial wiring can do.
    static func resets(_ board: BoardConfig) -> [ResetKind] {
        (board.serial?.reset ?? BoardConfig.Serial.defaultReset(for: board.profile)).kinds
    }
}

extension IngestServer: LocalIngest {}
