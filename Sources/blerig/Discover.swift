import ArgumentParser
import Benches
import Foundation
import Orchestrator

extension Blerig {
    struct Discover: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write a rig skeleton from the boards plugged into this host.",
            discussion: """
                Lists the USB serial ports with a profile guess from their VID:PID (Espressif 303a, CP210x \
                10c4:ea60 and CH34x 1a86 bridges: esp-point; Arduino 2341: nano33-ble-sense), the reset that goes \
                with it, and the hub port each board hangs on. With --radio, each board on a hub that switches \
                its ports one by one is found on the air: scan, switch its port off, scan again, switch it on; \
                the advertiser that went quiet is the board. What it cannot tell is marked TODO in the file.

                --radio: \(RadioSpec.forms).
                """)

        @Option(help: ArgumentHelp("The radio to scan with (finds each board's address).", valueName: "spec"),
            transform: parseRadio)
        var radio: RadioSpec?

        @Option(
            help: ArgumentHelp("How long each scan listens (4, 4s).", valueName: "S"),
            transform: { try parseDuration($0, flag: "--scan") })
        var scan: Duration = DiscoverTool.defaultScan

        @Option(help: ArgumentHelp("Write the rig here instead of to stdout.", valueName: "FILE"))
        var output: String?

        @Option(help: ArgumentHelp("The rig's name.", valueName: "NAME"))
        var name = "bench"

        func run() async throws {
            let errors = LineOutput.standardError
            let tool = DiscoverTool(radio: radio, scan: scan)
            let boards: [DiscoveredBoard]
            do {
                boards = try await tool.run(radios: RadioOpener()) { errors.print("blerig: \($0)") }
            } catch {
                errors.print("blerig: \(error)")
                throw ExitCode(ExitStatus.infrastructure.rawValue)
            }
            let radioText = radio.map { "\($0)" }
            let yaml = RigSkeleton.yaml(
                boards: boards, radio: radioText.flatMap { $0.hasPrefix("virtual:") ? nil : $0 }, name: name)
            guard let output else {
                LineOutput.standardOutput.print(yaml)
                return
            }
            do { try yaml.write(toFile: output, atomically: true, encoding: .utf8) } catch {
                errors.print("blerig: cannot write \(output): \(error.localizedDescription)")
                throw ExitCode(ExitStatus.infrastructure.rawValue)
            }
            errors.print("blerig: \(boards.count) board\(boards.count == 1 ? "" : "s") written to \(output)")
        }
    }
}
