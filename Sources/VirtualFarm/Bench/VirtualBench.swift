import BLECore
import BenchCore
import DeviceProfiles

/// The virtual farm as a ``Bench``: one simulated air, a ``VirtualRadio`` per rig radio, and per board the
/// virtual supply (``VirtualPowerSwitch``), EN and boot-strap lines (``VirtualResetLines``) and serial console
/// (``VirtualConsole``). Every board starts powered off. Built on the simulation thread by
/// ``VirtualBenchLauncher``.
public final class VirtualBench: Bench, @unchecked Sendable {
    // @unchecked Sendable: every stored property is immutable after init; the farm objects they reference are
    // confined to the simulation thread and assert it on entry.
    public let farm: Farm
    public let clock: any RigClock
    public let unixTimeAtOrigin: Duration
    public let radios: [any BenchRadio]
    public let boards: [BenchBoard]
    /// Never hears a fault: the farm's parts are simulated and do not die.
    public let health = BenchHealth()
    /// The radios behind ``radios``, for code that looks behind the interface (tests, the link model's checks).
    public let virtualRadios: [VirtualRadio]
    /// The board models behind ``boards``, in the same order.
    public let virtualBoards: [VirtualBoard]

    init(sim: Simulation, configuration: VirtualBenchConfiguration) {
        sim.assertIsolated()
        let farm = Farm(sim: sim, link: configuration.link, faults: configuration.faults)
        self.farm = farm
        clock = sim.clock
        unixTimeAtOrigin = configuration.unixTimeAtOrigin
        let radios = configuration.radios.map { VirtualRadio(id: $0.id, maxLinks: $0.maxLinks, farm: farm) }
        virtualRadios = radios
        self.radios = radios
        var boards: [BenchBoard] = []
        var models: [VirtualBoard] = []
        for config in configuration.boards {
            let model = farm.addBoard(id: config.id, profile: config.profile, settings: config.settings)
            models.append(model)
            let resets = config.resets.isEmpty ? nil : VirtualResetLines(board: model, kinds: config.resets)
            boards.append(
                BenchBoard(
                    id: config.id, match: BoardMatch(address: model.address, name: config.expectedName),
                    power: VirtualPowerSwitch(board: model), reset: resets, console: VirtualConsole(board: model),
                    identity: [("firmware", "\(model.firmwareVersion)")]))
        }
        self.boards = boards
        virtualBoards = models
    }
}

/// Opens a ``VirtualBench`` inside a new deterministic ``Simulation`` and runs the body there, in virtual time. With
/// ``VirtualBenchConfiguration/Airs/perRadio`` each radio's air is a bench of its own (``withBenchParts(_:)``), in a
/// simulation of its own on a thread of its own.
public struct VirtualBenchLauncher: BenchLauncher {
    public let configuration: VirtualBenchConfiguration

    public init(_ configuration: VirtualBenchConfiguration) { self.configuration = configuration }

    public var summary: String {
        let parts = configuration.parts.count
        return "virtual farm (seed \(configuration.seed)\(parts > 1 ? ", \(parts) airs" : ""))"
    }

    public func withBench<T: Sendable>(
        _ body: @escaping @Sendable (any Bench) async throws -> T
    ) async throws -> BenchOutcome<T> {
        try await Self.run(configuration, body)
    }

    /// Runs `body` once per air, each in its own simulation, at most ``VirtualBenchConfiguration/parallelAirs`` at
    /// once; the values come in the order of the radios.
    public func withBenchParts<T: Sendable>(
        _ body: @escaping @Sendable (any Bench) async throws -> T
    ) async throws -> BenchOutcome<[T]> {
        let parts = configuration.parts
        let width = max(1, min(configuration.parallelAirs ?? parts.count, parts.count))
        var values = [T?](repeating: nil, count: parts.count)
        var work = 0
        try await withThrowingTaskGroup(of: (Int, BenchOutcome<T>).self) { group in
            var next = 0
            func start() {
                let index = next
                next += 1
                group.addTask { (index, try await Self.run(parts[index], body)) }
            }
            while next < width { start() }
            while let (index, outcome) = try await group.next() {
                values[index] = outcome.value
                work += outcome.work ?? 0
                if next < parts.count { start() }
            }
        }
        return BenchOutcome(value: values.map { $0! }, work: work)
    }

    private static func run<T: Sendable>(
        _ configuration: VirtualBenchConfiguration, _ body: @escaping @Sendable (any Bench) async throws -> T
    ) async throws -> BenchOutcome<T> {
        try await Simulation.run(seed: configuration.seed, horizon: configuration.horizon) { sim in
            let bench = VirtualBench(sim: sim, configuration: configuration)
            let value = try await body(bench)
            return BenchOutcome(value: value, work: sim.work.timers)
        }
    }
}
