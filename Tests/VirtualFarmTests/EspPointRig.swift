import BLECore
import CentralStack
import DeviceProfiles

@testable import VirtualFarm

/// One esp-point board on a virtual air and the rig's virtual central, inside a simulation: the board is powered
/// and has printed READY when the test body starts.
struct EspRig: Sendable {
    let sim: Simulation
    let air: VirtualAir
    let board: VirtualBoard
    let central: VirtualCentral

    static let address = DeviceAddress(0x24_0A_C4_12_1A_2B)
    static let key: [UInt8] = (0..<32).map { UInt8($0 * 7 + 3) }

    /// The firmware object (use on the simulation thread only, as everything here).
    var firmware: EspPointFirmware { board.firmware as! EspPointFirmware }

    static func run<T: Sendable>(
        seed: UInt64 = 1, settings: VirtualBoardSettings = VirtualBoardSettings(),
        link: LinkParameters = LinkParameters(), _ body: @escaping @Sendable (EspRig) async throws -> T
    ) async throws -> T {
        try await Simulation.run(seed: seed) { sim in
            let air = VirtualAir(sim: sim, parameters: link)
            let firmware = EspPointFirmware(settings: settings, seed: sim.seed, id: "esp-1")
            let board = VirtualBoard(id: "esp-1", address: address, settings: settings, firmware: firmware, air: air)
            air.add(board)
            board.powerOn()
            try await sim.clock.sleep(for: .milliseconds(400))
            return try await body(EspRig(sim: sim, air: air, board: board, central: VirtualCentral(air: air)))
        }
    }

    /// Connects with the stack's esp-point handshake and runs `body` with a client; disconnects afterwards.
    func withClient<T: Sendable>(mtu: UInt16 = 247, _ body: (EspPointClient) async throws -> T) async throws -> T {
        var spec = ProfileSpec.standard(.espPoint)
        spec.preferredMTU = mtu
        return try await Handshake.withSession(
            central: central, address: board.address, spec: spec, connectTimeout: .seconds(5)
        ) { session in
            try await body(EspPointClient(session: session))
        }
    }

    /// Pairs the board (which must be in pairing mode) on one connection.
    func pair(key: [UInt8] = EspRig.key) async throws {
        try await withClient { client in try await client.pair(key: key) }
    }

    /// Connects, authenticates with `key` and runs `body`.
    func withAuthenticatedClient<T: Sendable>(
        key: [UInt8] = EspRig.key, mtu: UInt16 = 247, _ body: (EspPointClient) async throws -> T
    ) async throws -> T {
        try await withClient(mtu: mtu) { client in
            try await client.authenticate(key: key)
            return try await body(client)
        }
    }

    /// Console lines printed so far, as text.
    var consoleText: [String] { board.console.map(\.line.description) }
}

/// The ATT error a session call failed with, or nil when it succeeded or failed otherwise.
func attError(_ body: () async throws -> Void) async -> ATT.ErrorCode? {
    do {
        try await body()
        return nil
    } catch let error as SessionError {
        if case let .gatt(.att(code, _, _), _) = error { return code }
        return nil
    } catch {
        return nil
    }
}

/// The next Command Status notification, decoded.
func nextStatus(_ client: EspPointClient) async throws -> EspPoint.CommandStatus {
    let event = try await client.session.inbox(EspPoint.commandStatus)
        .next(within: .seconds(2), clock: client.session.clock, waitingFor: "Command Status")
    return try EspPoint.CommandStatus(decoding: event.value)
}

/// The ATT error a write of `bytes` to `characteristic` fails with, or nil when it succeeds.
func writeError(_ bytes: [UInt8], to characteristic: BluetoothUUID, on client: EspPointClient) async -> ATT.ErrorCode? {
    await attError { try await client.session.write(bytes, to: characteristic) }
}

/// A Log Control STATUS result, with the default capacity and no drops unless given.
func logStatus(
    oldest: UInt32, newest: UInt32, count: UInt32, capacity: UInt32 = 2048, dropped: UInt32 = 0
) -> EspPoint.LogStatus {
    EspPoint.LogStatus(oldest: oldest, newest: newest, count: count, capacity: capacity, dropped: dropped)
}
