import BLECore
import BenchCore
import DeviceProfiles
import VirtualFarm

/// A served board's supply: off closes its controller and cuts the model's power; on opens a fresh controller
/// and powers the model, which boots and advertises on it.
struct ServedPowerSwitch: PowerSwitch {
    let served: ServedBoard
    var description: String { "served board \(served.id)'s supply" }

    func on() async throws(BenchError) {
        let powered = await served.isPowered
        guard !powered else { return }
        try await served.radio.open()
        await served.onBoard { $0.powerOn() }
    }

    func off() async throws(BenchError) {
        await served.onBoard { $0.powerOff() }
        await served.radio.close()
    }
}

/// A served board's EN line and boot strap: the chip restarts, and its controller with it.
struct ServedResetLines: ResetControl {
    let served: ServedBoard
    let kinds: [ResetKind]

    func reset(_ kind: ResetKind) async throws(BenchError) {
        guard kinds.contains(kind) else {
            throw BenchError(.unsupported, "served board \(served.id) is not wired for a \(kind) reset")
        }
        guard await served.isPowered else {
            throw BenchError(.unsupported, "served board \(served.id) is off: a reset does nothing")
        }
        await served.onBoard { $0.powerOff() }
        await served.radio.close()
        try await served.radio.open()
        switch kind {
        case .run: await served.onBoard { $0.powerOn() }
        case .bootloader:
            await served.onBoard { board in
                board.powerOn()
                board.enterBootloader()
            }
        }
    }
}

/// A served board's serial console: the model's lines, stamped with the bench clock when they are printed.
struct ServedConsole: BoardConsole {
    let served: ServedBoard
    var description: String { "served board \(served.id)'s console" }

    func attach(_ handler: @escaping @Sendable (ConsoleEntry) -> Void) {
        let clock = served.clock
        served.sim.post { [board = SimulationConfinedBoard(served.board)] in
            board.value.attachConsole { entry in
                var stamped = entry
                stamped.at = clock.now
                handler(stamped)
            }
        }
    }

    func send(_ line: String) async throws(BenchError) {
        await served.onBoard { $0.type(line) }
    }
}

extension ServedBoard {
    var isPowered: Bool {
        get async {
            let answer = SendableBox(false)
            await onBoard { answer.value = $0.isPowered }
            return answer.value
        }
    }
}

/// A value written on the simulation thread and read after the wait for that write.
final class SendableBox<Value>: @unchecked Sendable {
    var value: Value
    init(_ value: Value) { self.value = value }
}
