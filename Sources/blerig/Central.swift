import ArgumentParser
import BLECore
import Benches
import DeviceProfiles
import Orchestrator

extension Blerig {
    /// Hidden: for the tests that kill a central with SIGKILL and restart it (Tests/InteropTests).
    struct Central: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run the connection state machine for one board, saving and restoring its state.",
            discussion: """
                Keeps a link to the board at --address under the connection state machine, reconnecting after \
                drops, and saves the machine's state to --state on every change. At start it restores the saved \
                state when it is younger than an hour. Pairing keys (esp-point) are kept in pairing-keys.json beside \
                --state. Prints one line per transition and notice. Runs until SIGINT or SIGTERM; with --update, the app \
                central updates the board (connecting on demand, resuming from the board's position) and exits.

                --radio: \(RadioSpec.forms).

                Exit status:
                \(CentralTool.exitStatuses)
                """,
            shouldDisplay: false)

        @Option(help: ArgumentHelp("The radio to connect with.", valueName: "spec"), transform: parseRadio)
        var radio: RadioSpec

        @Option(
            help: ArgumentHelp("The board's address (with /random for a random one).", valueName: "address"),
            transform: { text in
                guard let address = DeviceAddress(text) else {
                    throw ValidationError("--address: '\(text)' is not an address such as 24:0A:C4:12:1A:2B/random")
                }
                return address
            })
        var address: DeviceAddress

        @Option(
            help: ArgumentHelp("The board's profile: esp-point, nano33-ble-sense or hrm.", valueName: "profile"),
            transform: { text in
                guard let profile = Profile(rawValue: text) else {
                    throw ValidationError("--profile: '\(text)' is not a profile (esp-point, nano33-ble-sense, hrm)")
                }
                return profile
            })
        var profile: Profile

        @Option(help: ArgumentHelp("The file the state is saved to and restored from.", valueName: "path"))
        var state: String

        @Option(
            help: ArgumentHelp(
                "Update the board to this OTA image (esp-point), then exit; needs --version.", valueName: "image"))
        var update: String?

        @Option(
            help: ArgumentHelp("The version of the --update image, e.g. 1.5.0.", valueName: "version"),
            transform: { text in
                guard let version = FirmwareVersion(text) else {
                    throw ValidationError("--version: '\(text)' is not a version such as 1.5.0")
                }
                return version
            })
        var version: FirmwareVersion?

        func validate() throws {
            if (update == nil) != (version == nil) {
                throw ValidationError("--update and --version go together: the image and the version it carries")
            }
        }

        func run() async throws {
            let tool = CentralTool(
                radio: radio, address: address, profile: profile, statePath: state,
                update: update.map { CentralTool.Update(imagePath: $0, version: version!) })
            let status = await runInterruptibly(what: "the central") { control, _, _ in
                await tool.run(
                    radios: RadioOpener(), control: control, output: { LineOutput.standardOutput.print($0) },
                    errors: { LineOutput.standardError.print($0) })
            }
            if status != .passed { throw ExitCode(status.rawValue) }
        }
    }
}
