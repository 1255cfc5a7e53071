import ArgumentParser
import Benches
import Orchestrator

extension Blerig {
    struct Console: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show a board's serial console and type commands to it; Ctrl-] leaves.",
            discussion: """
                Lines are printed as they arrive; a line typed and ended with Enter is sent to the board (status, \
                reboot, pair, ...). The port is opened exclusively (TIOCEXCL and a lock file other programs see) \
                without HUPCL, so opening and closing it does not reset the board. When the port goes away (a reset, \
                a power cycle) the console waits for it to come back and stay for a second, and reopens it. Ctrl-], \
                Ctrl-D on an empty line, SIGINT or --duration end the session. Without a terminal, lines to type \
                are read from stdin.

                Exit status:
                \(ExitStatus.table(boardCommandExitStatuses))
                """)

        @Argument(help: ArgumentHelp("The board's id in the rig file.", valueName: "BOARD"))
        var id: String?

        @OptionGroup var board: BoardOptions

        func validate() throws { try board.check(board: id) }

        @Flag(help: "Prefix each line with its arrival time (s) and the boot it belongs to.")
        var timestamps = false

        @Option(help: ArgumentHelp("Also append every line, time-stamped, to this file.", valueName: "FILE"))
        var log: String?

        @Option(
            help: ArgumentHelp("Leave after this long (10, 10s, 2m).", valueName: "S"),
            transform: { try parseDuration($0, flag: "--duration") })
        var duration: Duration?

        func run() async throws {
            let session = ConsoleSession(
                tool: BoardTool(target: try board.target(board: id)), timestamps: timestamps, logFile: log,
                duration: duration)
            let control = RunControl()
            let errors = LineOutput.standardError
            let signals = SignalWatcher(control: control) { _ in }
            defer { withExtendedLifetime(signals) {} }
            do {
                try await session.run(
                    control: control, output: { LineOutput.standardOutput.print($0) }, status: { errors.print($0) })
            } catch {
                throw fail(error)
            }
            if case .infrastructure(let message) = control.reason {
                errors.print("blerig: \(message)")
                throw ExitCode(ExitStatus.infrastructure.rawValue)
            }
        }
    }
}
