import BLECore
import BenchCore
import Orchestrator
import Radios
import VirtualFarm

/// Opens one radio from a command-line spec (``RadioSpec``) for `blerig scan` and `blerig probe`: the composition
/// root's counterpart of ``BenchBuilder`` for tools that need a radio and no campaign.
///
/// `virtual:<rig file>` is real: it loads the rig (which must be virtual), opens its virtual bench with the rig's
/// seed, powers every board on and runs the body with the first radio's central inside the simulation, in virtual
/// time (`--duration 10` scans ten virtual seconds). The HCI host's specs (`tcp:`, `uart:`, `hci-user:`) open the
/// controller with blerig's own host (``withHCIHost(_:_:)``).
public struct RadioOpener: RadioOpening {
    public init() {}

    /// Parses `spec` and runs `body` on that radio (see ``withCentral(_:_:)``).
    public static func withCentral<T: Sendable>(
        spec: String, _ body: @escaping @Sendable (any Central, any RigClock) async throws -> T
    ) async throws -> T {
        try await RadioOpener().withCentral(RadioSpec.parse(spec).get(), body)
    }

    public func withCentral<T: Sendable>(
        _ spec: RadioSpec, _ body: @escaping @Sendable (any Central, any RigClock) async throws -> T
    ) async throws -> T {
        switch spec {
        case let .virtual(rigFile): try await withVirtualRig(rigFile, body)
        case let .hci(transport): try await withHCIHost(transport, body)
        case let .bluez(adapter): try await withBlueZ(adapter, body)
        }
    }

    /// The kernel's own stack on adapter hciN: opens mgmt (powering the adapter on if it is off), runs `body` with
    /// the central on the wall clock, and disconnects its links and closes mgmt whatever the body does.
    func withBlueZ<T: Sendable>(
        _ adapter: UInt16, _ body: @escaping @Sendable (any Central, any RigClock) async throws -> T
    ) async throws -> T {
        let central: BlueZCentral
        do { central = try await BlueZCentral.open(adapter: adapter) } catch {
            throw RadioOpenError(.unavailable, "radio bluez:hci\(adapter): \(error)")
        }
        do {
            let value = try await body(central, central.clock)
            await central.close()
            return value
        } catch {
            await central.close()
            throw error
        }
    }

    /// The rig's virtual bench: boards powered on, the first radio's central, the simulation's clock.
    func withVirtualRig<T: Sendable>(
        _ path: String, _ body: @escaping @Sendable (any Central, any RigClock) async throws -> T
    ) async throws -> T {
        let rig: RigConfig
        do { rig = try RigFile.load(contentsOf: path, knownSuites: Campaign.suiteNames) } catch {
            throw RadioOpenError(.rigFile, error.report)
        }
        guard rig.isVirtual else {
            let radio = rig.radios.first { !$0.isVirtual } ?? rig.radios[0]
            throw RadioOpenError(
                .rigFile,
                "\(radio.location): virtual:\(path) needs a virtual rig, and this one's radio is '\(radio.kindName)'; "
                    + "name a hardware radio itself with --radio (\(RadioSpec.forms))")
        }
        let seed = rig.virtual?.seed ?? VirtualFarmConfig.defaultSeed
        let launcher = VirtualBenchLauncher(BenchBuilder.virtualConfiguration(rig, seed: seed))
        return try await launcher.withBench { bench in
            for board in bench.boards { try await board.power?.on() }
            return try await body(bench.radios[0].central, bench.clock)
        }.value
    }

    /// blerig's HCI host on an H4 transport: opens it, brings the controller up, runs `body` with the host's
    /// central on the wall clock, and closes everything (links first) whatever the body does.
    func withHCIHost<T: Sendable>(
        _ transport: HCITransportSpec, _ body: @escaping @Sendable (any Central, any RigClock) async throws -> T
    ) async throws -> T {
        let opened: any HCITransport
        do { opened = try transport.open() } catch {
            throw RadioOpenError(.unavailable, "radio \(transport): \(error)")
        }
        let stack: HCIStack
        do { stack = try await HCIStack.open(opened) } catch {
            throw RadioOpenError(.unavailable, "radio \(transport): \(error)")
        }
        let central = HCICentral(stack: stack)
        do {
            let value = try await body(central, stack.clock)
            await stack.shutdown()
            return value
        } catch {
            await stack.shutdown()
            throw error
        }
    }
}
