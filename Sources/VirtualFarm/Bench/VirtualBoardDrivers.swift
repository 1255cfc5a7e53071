import BLECore
import BenchCore
import DeviceProfiles
import Synchronization

/// A virtual board's supply: switching it off loses RAM and links at once (each central notices after its
/// supervision timeout); switching it on boots with `reset=POWERON`.
public struct VirtualPowerSwitch: PowerSwitch, @unchecked Sendable {
    // @unchecked Sendable: the board is confined to the simulation thread, and these methods are called from
    // tasks running on the simulation's executor (the board asserts it).
    let board: VirtualBoard

    public var description: String { "virtual supply of \(board.id)" }

    public func on() async throws(BenchError) { board.powerOn() }
    public func off() async throws(BenchError) { board.powerOff() }
}

/// A virtual board's EN and boot-strap lines, as an ESP32 DevKit's auto-reset circuit drives them: a run reset
/// pulses EN (the board boots with `reset=EXT` 100 ms later); a bootloader reset holds IO0 low through the pulse,
/// so the ROM waits to be flashed.
public struct VirtualResetLines: ResetControl, @unchecked Sendable {
    // @unchecked Sendable: as VirtualPowerSwitch.
    let board: VirtualBoard
    public let kinds: [ResetKind]

    /// How long EN is held low (docs/board-contract.md, "Resets, power and boot").
    public static let pulse: Duration = .milliseconds(100)

    public func reset(_ kind: ResetKind) async throws(BenchError) {
        guard kinds.contains(kind) else {
            throw BenchError(.unsupported, "board \(board.id) has no \(kind) reset wiring (it has \(kinds))")
        }
        do { try await board.sim.clock.sleep(for: Self.pulse) } catch {
            throw BenchError(.cancelled, "reset of \(board.id) cancelled")
        }
        switch kind {
        case .run: board.reset(.external)
        case .bootloader: board.enterBootloader()
        }
    }
}

/// A virtual board's serial console at 115200 baud: every line the board prints, tagged with its boot, and
/// lines typed to it, delivered after the time they take on the wire.
public final class VirtualConsole: BoardConsole, @unchecked Sendable {
    // @unchecked Sendable: `tracker` is touched only inside the board's console listener, which runs on the
    // simulation thread; the board itself asserts confinement.
    let board: VirtualBoard
    private var tracker = BootTracker()

    /// 8N1 at 115200 baud: ten bits per character.
    static let secondsPerCharacter = 10.0 / 115_200

    init(board: VirtualBoard) { self.board = board }

    public var description: String { "virtual console of \(board.id)" }

    public func attach(_ handler: @escaping @Sendable (ConsoleEntry) -> Void) {
        board.sim.assertIsolated()
        board.consoleListener = { [self] at, line in
            handler(tracker.entry(line.description, at: at))
        }
    }

    public func send(_ line: String) async throws(BenchError) {
        let wire = Duration.microseconds(Double(line.utf8.count + 1) * Self.secondsPerCharacter * 1e6)
        do { try await board.sim.clock.sleep(for: wire) } catch {
            throw BenchError(.cancelled, "typing on the console of \(board.id) cancelled")
        }
        board.type(line)
    }
}
