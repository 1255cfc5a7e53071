import ArgumentParser
import BenchCore
import Benches
import Orchestrator

/// How `power`, `reset` and `console` name the board: its id in a rig file (the command's BOARD argument), or
/// its wiring given directly.
struct BoardOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The rig file that defines BOARD.", valueName: "rig.yaml"))
    var rig = "rigs/bench.yaml"

    @Option(
        help: ArgumentHelp(
            "A serial port instead of a rig's board: /dev/ttyACM0, /dev/serial/by-id/..., usb:1-1.4:1.0, serial:SN, "
                + "id:303a:1001.",
            valueName: "PORT"))
    var port: String?

    @Option(help: ArgumentHelp("The port's baud rate, with --port.", valueName: "N"))
    var baud = 115_200

    @Option(help: ArgumentHelp("The reset wiring, with --port: a preset or a sequence.", valueName: "RESET"))
    var wiring = "esp32-classic"

    @Option(
        help: ArgumentHelp(
            "A hub location instead of a rig's board: 1-1.4, or 1 for bus 1's root hub.", valueName: "LOC"))
    var hub: String?

    @Option(name: .customLong("hub-port"), help: ArgumentHelp("The port on --hub, from 1.", valueName: "N"))
    var hubPort: Int?

    func check(board: String?) throws {
        if board == nil && port == nil && hub == nil {
            throw ValidationError("name a BOARD of the rig, or give --port or --hub with --hub-port")
        }
        if board != nil && (port != nil || hub != nil) {
            throw ValidationError("give either BOARD (from --rig) or --port/--hub, not both")
        }
        if (hub == nil) != (hubPort == nil) { throw ValidationError("--hub and --hub-port go together") }
        guard (300...4_000_000).contains(baud) else { throw ValidationError("--baud must be 300 to 4000000") }
    }

    /// The target; a rig or a name that does not parse exits with the usage status.
    func target(board: String?) throws -> BoardTarget {
        do {
            if let board { return try BoardTarget.board(board, rig: rig) }
            var target = BoardTarget(label: port ?? "hub \(hub ?? "") port \(hubPort ?? 0)")
            if let port {
                target.serial = BoardTarget.Serial(
                    name: try SerialPortName(parsing: port), baud: baud, wiring: try ResetWiring(parsing: wiring))
            }
            if let hub, let hubPort { target.power = (hub, hubPort) }
            return target
        } catch let error as BoardToolError {
            throw fail(error)
        } catch {
            throw fail(.usage("\(error)"))
        }
    }
}

/// How `power`, `reset` and `console` exit, for their `--help`.
let boardCommandExitStatuses: [(ExitStatus, String)] = [
    (.passed, "done (console: the session ended with Ctrl-], Ctrl-D, SIGINT or --duration)"),
    (.usage, "the arguments, the rig file or the board's wiring are wrong; nothing was touched"),
    (.infrastructure, "the port or the hub failed, or the board did not do what was asked (the error says which)"),
]

/// Prints a board command's failure and gives the exit status it ends with.
func fail(_ error: BoardToolError) -> ExitCode {
    LineOutput.standardError.print("blerig: \(error)")
    return ExitCode(error.exitStatus.rawValue)
}
