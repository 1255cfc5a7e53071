import ArgumentParser
import Benches
import Orchestrator

extension Blerig {
    struct Scan: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the devices advertising around a radio.",
            discussion: """
                Listens for --duration and prints one row per advertiser, strongest first: address and type \
                (public or random), RSSI of the last report and the strongest, how many reports, whether it is \
                connectable, its name, advertised service UUIDs and manufacturer data (company id and bytes). \
                SIGINT ends the scan early and still prints what was seen.

                --radio: \(RadioSpec.forms). virtual:rigs/virtual.yaml scans the rig's simulated boards, powered \
                on, in virtual time: --duration 10 is ten virtual seconds.

                --json prints one JSON document when the scan ends, with sorted keys: devices (address, \
                address_type, name, rssi_last, rssi_max, reports, connectable, services, manufacturer_data, \
                first_seen_s, last_seen_s), duration_s, interrupted.

                Exit status:
                \(ScanTool.exitStatuses)
                """)

        @Option(help: ArgumentHelp("The radio to scan with.", valueName: "spec"), transform: parseRadio)
        var radio: RadioSpec

        @Option(
            help: ArgumentHelp("How long to scan (10, 10s, 1.5m), on the radio's clock.", valueName: "S"),
            transform: { try parseDuration($0, flag: "--duration") })
        var duration: Duration = ScanTool.defaultDuration

        @Flag(help: "Print one JSON document instead of the table.")
        var json = false

        func run() async throws {
            let tool = ScanTool(radio: radio, duration: duration, json: json)
            let status = await runInterruptibly(what: "the scan") { control, output, errors in
                await tool.run(radios: RadioOpener(), control: control, output: output, errors: errors)
            }
            if status != .passed { throw ExitCode(status.rawValue) }
        }
    }
}
