import ArgumentParser
import Benches
import Orchestrator

extension Blerig {
    struct Power: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Switch a board's USB hub port: on, off, cycle, or show its status.",
            discussion: """
                The port is switched as uhubctl does: through the port's sysfs `disable` file (Linux 6.0 and later), \
                else with SET/CLEAR_FEATURE(PORT_POWER) on a hub with per-port power switching; a USB 3 hub's USB 2 \
                half is switched with it. After off, the device behind the port must leave the bus within 3 s, or \
                the hub does not really cut power and the command fails. Permission errors name the udev rules to \
                install (ci/udev/99-blerig.rules).

                Exit status:
                \(ExitStatus.table(boardCommandExitStatuses))
                """)

        @Argument(
            help: ArgumentHelp(
                "The board's id in the rig file (none with --hub), then on, off, cycle or status.",
                valueName: "BOARD ACTION"))
        var words: [String] = []

        @OptionGroup var board: BoardOptions

        /// BOARD ACTION, or ACTION alone with --hub.
        var parsed: (board: String?, action: BoardTool.PowerAction)? {
            guard (1...2).contains(words.count), let action = BoardTool.PowerAction(rawValue: words.last!) else {
                return nil
            }
            return (words.count == 2 ? words[0] : nil, action)
        }

        func validate() throws {
            guard let parsed else {
                throw ValidationError("write BOARD on|off|cycle|status (or the action alone with --hub and --hub-port)")
            }
            try board.check(board: parsed.board)
        }

        @Option(
            name: .customLong("off-for"),
            help: ArgumentHelp("How long cycle leaves the port off (2, 500ms).", valueName: "S"),
            transform: { try parseDuration($0, flag: "--off-for") })
        var offFor: Duration = .seconds(2)

        func run() async throws {
            guard let (id, action) = parsed else { return }
            let tool = BoardTool(target: try board.target(board: id))
            do {
                try await tool.power(action, offFor: offFor) { LineOutput.standardOutput.print($0) }
            } catch {
                throw fail(error)
            }
        }
    }
}
