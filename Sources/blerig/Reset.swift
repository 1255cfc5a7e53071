import ArgumentParser
import BenchCore
import Benches
import Orchestrator

extension Blerig {
    struct Reset: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Reset a board through its serial port's DTR and RTS lines (or the 1200-baud touch).",
            discussion: """
                Plays the board's reset from the rig (serial.reset: esp32-classic, esp32-unix-tight, esp32-usb-jtag, \
                hard-reset, run-only, arduino-1200-touch, dtr-pulse, or a sequence of its own), or --sequence in \
                esptool's grammar: D1/D0 set DTR, R1/R0 set RTS, U1,0 sets both in one call, W0.1 waits 0.1 s; \
                for example D0|R1|W0.1|D1|R0|W0.05|D0 enters an ESP32's ROM bootloader.

                Exit status:
                \(ExitStatus.table(boardCommandExitStatuses))
                """)

        @Argument(help: ArgumentHelp("The board's id in the rig file.", valueName: "BOARD"))
        var id: String?

        @OptionGroup var board: BoardOptions

        func validate() throws { try board.check(board: id) }

        @Flag(help: "Enter the bootloader instead of restarting the application.")
        var bootloader = false

        @Option(
            help: ArgumentHelp("A sequence to play instead of the board's reset.", valueName: "S"),
            transform: { text in
                do { return try ResetSequence(parsing: text) } catch {
                    throw ValidationError("--sequence: \(error)")
                }
            })
        var sequence: ResetSequence?

        func run() async throws {
            let tool = BoardTool(target: try board.target(board: id))
            do {
                try await tool.reset(bootloader ? .bootloader : .run, sequence: sequence) {
                    LineOutput.standardOutput.print($0)
                }
            } catch {
                throw fail(error)
            }
        }
    }
}
