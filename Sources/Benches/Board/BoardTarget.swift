import BenchCore
import BoardControl
import Orchestrator

/// What `blerig power`, `blerig reset` and `blerig console` act on: one board's wiring, read from a rig file
/// (`BOARD --rig rigs/bench.yaml`) or given on the command line (`--port`, `--hub` and `--hub-port`).
public struct BoardTarget: Sendable {
    public struct Serial: Sendable {
        public var name: SerialPortName
        public var baud: Int
        public var wiring: ResetWiring

        public init(name: SerialPortName, baud: Int, wiring: ResetWiring) {
            self.name = name
            self.baud = baud
            self.wiring = wiring
        }
    }

    /// `board 'esp-01' (rigs/bench.yaml:12:5)`, or the port or hub given.
    public var label: String
    public var serial: Serial?
    public var power: (hub: String, port: Int)?
    /// Whether the target is a rig's board: its errors then start with ``label``.
    public var fromRig = false

    /// `board 'esp-01' (rigs/bench.yaml:12:5): ` for a rig's board; nothing for a port or hub given directly, which
    /// the message names anyway.
    public var prefix: String { fromRig ? "\(label): " : "" }

    public init(label: String, serial: Serial? = nil, power: (hub: String, port: Int)? = nil) {
        self.label = label
        self.serial = serial
        self.power = power
    }

    /// Board `id` of the rig at `rigPath`. A rig that does not load is a usage error with every issue.
    public static func board(_ id: String, rig rigPath: String) throws(BoardToolError) -> BoardTarget {
        let rig: RigConfig
        do { rig = try RigFile.load(contentsOf: rigPath, knownSuites: Campaign.suiteNames) } catch {
            throw .usage("\(error)")
        }
        guard let board = rig.board(id: id) else {
            let ids = rig.boards.map(\.id).joined(separator: ", ")
            throw .usage("\(rigPath) has no board '\(id)' (its boards: \(ids.isEmpty ? "none" : ids))")
        }
        var target = BoardTarget(label: "board '\(id)' (\(board.location))")
        target.fromRig = true
        if let serial = board.serial {
            do {
                target.serial = Serial(
                    name: try SerialPortName(parsing: serial.port), baud: serial.baud, wiring: serial.reset)
            } catch {
                throw .usage("\(serial.location): \(error.message)")
            }
        }
        target.power = board.power.map { ($0.hub, $0.port) }
        return target
    }

    /// The serial wiring, or a usage error saying what the board lacks.
    func requireSerial(for what: String) throws(BoardToolError) -> Serial {
        guard let serial else {
            throw .usage("\(label) has no serial port to \(what) through: give it `serial: {port: ...}` in the rig")
        }
        return serial
    }
}

/// Why a board command failed: the arguments or the rig (exit 2), or the bench (exit 3).
public enum BoardToolError: Error, Sendable, CustomStringConvertible {
    case usage(String)
    case bench(BenchError)

    public var description: String {
        switch self {
        case .usage(let message): message
        case .bench(let error): error.message
        }
    }

    public var exitStatus: ExitStatus {
        switch self {
        case .usage: .usage
        case .bench: .infrastructure
        }
    }
}
