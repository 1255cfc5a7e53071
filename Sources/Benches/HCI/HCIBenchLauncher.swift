import BLECore
import BenchCore
import DeviceProfiles
import Foundation
import Orchestrator
import Radios
import Synchronization
import VirtualFarm

/// Opens a bench whose radios are blerig's own HCI host: on hardware controllers (`kind: hci`: TCP, UART, the
/// BlueZ user channel) with the boards found on the air, or on rootcanal (`kind: rootcanal`), where blerig stands
/// every board model up on a controller of its own and serves it as a real peer. Everything runs on the wall
/// clock; everything the launcher started (rootcanal, controllers, the served boards' simulation) is stopped
/// before ``withBench(_:)`` returns.
struct HCIBenchLauncher: BenchLauncher {
    let rig: RigConfig
    let seed: UInt64
    let boards: [VirtualBenchConfiguration.Board]

    /// The most links a radio holds when the rig does not say (rootcanal has no limit of its own).
    static let defaultMaxLinks = 8

    var summary: String {
        let radios = rig.radios.map { radio -> String in
            switch radio.kind {
            case .hci(let transport): "hci \(transport)"
            case .rootcanal(let transport?, _): "rootcanal at \(transport)"
            case .rootcanal(nil, let tick): "rootcanal (started by blerig, \(tick) ms tick)"
            case .virtual, .bluez: radio.kindName
            }
        }
        return radios.joined(separator: ", ")
    }

    func withBench<T: Sendable>(
        _ body: @escaping @Sendable (any Bench) async throws -> T
    ) async throws -> BenchOutcome<T> {
        let clock = WallClock()
        let health = BenchHealth()
        let unixTimeAtOrigin = Duration.nanoseconds(Int64(Date().timeIntervalSince1970 * 1e9))
        let rootcanal = try await startRootcanal()
        let watch = FaultWatch(health: health, clock: clock)
        if let rootcanal, let process = rootcanal.process {
            let part = "rootcanal (pid \(process.pid), started by blerig)"
            process.whenExited { exit in watch.report(part: part, cause: "it \(exit) while the run used it") }
        }
        var radios: [HCIRadio] = []
        do {
            for radio in rig.radios {
                let opened = try await open(radio, rootcanal: rootcanal, clock: clock)
                let part = "radio '\(radio.id)' (\(opened.kind))"
                opened.stack.whenTransportCloses { why in watch.report(part: part, cause: why) }
                radios.append(opened)
            }
            let value: T
            let opened = radios
            if rig.servesBoardModels {
                let controller = try controllerSpec(rootcanal: rootcanal)
                value = try await ServedFarm.run(
                    boards: boards, seed: seed, controller: controller, clock: clock
                ) { boards in
                    try await body(
                        WallClockBench(
                            clock: clock, unixTimeAtOrigin: unixTimeAtOrigin, radios: opened, boards: boards,
                            health: health))
                }
            } else {
                // Real boards: serial consoles, reset lines and hub ports from BoardControl where the rig wires them.
                let hardware = try HardwareBoards.open(rig, clock: clock)
                defer { hardware.close() }
                value = try await body(
                    WallClockBench(
                        clock: clock, unixTimeAtOrigin: unixTimeAtOrigin, radios: radios, boards: hardware.boards,
                        health: health))
            }
            watch.stop()
            let work = await close(radios, rootcanal)
            return BenchOutcome(value: value, work: work)
        } catch {
            watch.stop()
            _ = await close(radios, rootcanal)
            throw error
        }
    }

    private func close(_ radios: [HCIRadio], _ rootcanal: RootcanalProcess?) async -> Int {
        var packets = 0
        for radio in radios {
            packets += radio.counters.filter { $0.metric.hasPrefix("hci.packets") }.reduce(0) { $0 + Int($1.value) }
            await radio.stack.shutdown()
        }
        await rootcanal?.stop()
        return packets
    }

    /// Starts rootcanal when a radio asks blerig to (`kind: rootcanal` without a transport).
    private func startRootcanal() async throws(BenchError) -> RootcanalProcess? {
        let ticks = rig.radios.compactMap { radio -> Int? in
            if case .rootcanal(nil, let tick) = radio.kind { return tick }
            return nil
        }
        guard let tick = ticks.min() else { return nil }
        var options = RootcanalProcess.Options()
        options.timerPeriod = .milliseconds(tick)
        do {
            return try await RootcanalProcess.start(options)
        } catch {
            throw BenchError(.missing, "rootcanal did not start: \(error)")
        }
    }

    private func controllerSpec(rootcanal: RootcanalProcess?) throws(BenchError) -> HCITransportSpec {
        if let rootcanal { return .tcp(host: rootcanal.host, port: rootcanal.hciPort) }
        for radio in rig.radios {
            if case .rootcanal(let transport?, _) = radio.kind { return transport }
        }
        throw BenchError(.unsupported, "boards can be served only on a rootcanal radio")
    }

    private func open(
        _ radio: RadioConfig, rootcanal: RootcanalProcess?, clock: WallClock
    ) async throws(BenchError) -> HCIRadio {
        let spec: HCITransportSpec
        switch radio.kind {
        case .hci(let transport): spec = transport
        case .rootcanal: spec = try controllerSpec(rootcanal: rootcanal)
        case .virtual, .bluez:
            throw BenchError(.unsupported, "radio '\(radio.id)' (\(radio.kindName)) is not an HCI radio")
        }
        let where_ = "\(radio.location.lineAndColumn)"
        let transport: any HCITransport
        do { transport = try spec.open() } catch {
            throw BenchError(Self.code(error), "radio '\(radio.id)' (\(where_)): \(error)")
        }
        do {
            return try await Self.radio(
                id: radio.id, on: transport, maxLinks: radio.maxLinks ?? Self.defaultMaxLinks, clock: clock)
        } catch {
            throw BenchError(.io, "radio '\(radio.id)' (\(where_)): \(error)")
        }
    }

    /// The radio a campaign runs on: blerig's HCI host on `transport`, its central working on the host's executor
    /// (``HCIRadio/executor``). `blerig bench hci` times its campaign row on a radio made here
    /// (``BenchBuilder/campaignRadio(id:on:clock:)``).
    static func radio(
        id: String, on transport: any HCITransport, maxLinks: Int, clock: WallClock
    ) async throws(HCIStackError) -> HCIRadio {
        let stack = try await HCIStack.open(transport, clock: clock)
        return HCIRadio(id: id, stack: stack, maxLinks: maxLinks)
    }

    static func code(_ error: HCITransportError) -> BenchError.Code {
        switch error.code {
        case .busy: .busy
        case .permission: .permission
        case .unavailable, .invalidSpec: .missing
        case .disconnected: .gone
        case .framing, .io: .io
        }
    }
}

/// Reports the bench's parts dying to its ``BenchHealth`` until the launcher starts closing them itself.
final class FaultWatch: Sendable {
    private let health: BenchHealth
    private let clock: any RigClock
    private let closing = Mutex(false)

    init(health: BenchHealth, clock: any RigClock) {
        self.health = health
        self.clock = clock
    }

    func report(part: String, cause: String) {
        guard !closing.withLock({ $0 }) else { return }
        health.report(BenchFault(part: part, cause: cause, at: clock.now))
    }

    /// From here on the parts end because the launcher ends them.
    func stop() { closing.withLock { $0 = true } }
}

/// The served boards of a rootcanal rig: one simulation on the wall clock holds every board model; each board
/// has its own controller. The bench body runs outside the simulation, on the cooperative pool, and reaches the
/// boards through their capabilities. Public for the benchmarks that serve a board the same way (the sync kill
/// campaign).
public enum ServedFarm {
    public static func run<T: Sendable>(
        boards: [VirtualBenchConfiguration.Board], seed: UInt64, controller: HCITransportSpec, clock: any RigClock,
        _ body: @escaping @Sendable ([BenchBoard]) async throws -> T
    ) async throws -> T {
        try await Simulation.runOnWallClock(seed: seed) { sim in
            let served = boards.map { config in
                ServedBoard(
                    id: config.id, profile: config.profile,
                    address: config.settings.address
                        ?? VirtualBoardSettings.defaultAddress(for: config.id, profile: config.profile),
                    settings: config.settings, sim: sim, controller: controller, clock: clock)
            }
            let benchBoards = zip(served, boards).map { served, config in
                BenchBoard(
                    id: served.id, match: BoardMatch(address: served.airAddress, name: config.expectedName),
                    power: ServedPowerSwitch(served: served),
                    reset: config.resets.isEmpty ? nil : ServedResetLines(served: served, kinds: config.resets),
                    console: ServedConsole(served: served),
                    identity: [
                        ("firmware", "\(served.board.firmwareVersion)"), ("controller", "\(controller)"),
                    ])
            }
            let task = Task.detached { try await body(benchBoards) }
            let result = await withTaskCancellationHandler {
                await task.result
            } onCancel: {
                task.cancel()
            }
            for board in served { await board.radio.close() }
            return try result.get()
        }
    }
}
