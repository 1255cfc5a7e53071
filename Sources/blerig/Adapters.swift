import ArgumentParser
import Foundation
import Orchestrator
import Radios

extension Blerig {
    struct Adapters: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the Bluetooth adapters the kernel knows, for radios on the HCI user channel (hci-user:N).",
            discussion: """
                One line per adapter: its name, BD_ADDR, bus, whether it is up and running, and whether it supports \
                LE. The user channel needs the adapter down and CAP_NET_ADMIN.

                Exit status:
                \(ExitStatus.table(Self.exitStatuses))
                """)

        static let exitStatuses: [(ExitStatus, String)] = [
            (.passed, "the adapters were listed (none is no error)"),
            (.usage, "the arguments are wrong"),
            (.infrastructure, "the kernel's adapter list could not be read (no Bluetooth socket support)"),
        ]

        @Flag(help: "Print a JSON array of {index, name, address, up, running, bus, le} instead.")
        var json = false

        func run() async throws {
            let adapters: [BluetoothAdapter]
            do {
                adapters = try BluetoothAdapters.list()
            } catch {
                LineOutput.standardError.print("blerig: \(error)")
                throw ExitCode(ExitStatus.infrastructure.rawValue)
            }
            guard json else {
                for line in BluetoothAdapters.lines(adapters) { LineOutput.standardOutput.print(line) }
                return
            }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            LineOutput.standardOutput.print(String(decoding: try encoder.encode(adapters), as: UTF8.self))
        }
    }
}
