import ArgumentParser
import Benches
import Orchestrator

extension Blerig {
    struct Doctor: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check what this host has for real boards, and resolve a rig's bindings on it.",
            discussion: """
                Looks at the kernel's Bluetooth support and adapters (and who holds them), bluetoothd, this \
                process's and the binary's capabilities, the serial ports (and who holds them), the USB hubs and \
                whether they switch power per port, and the udev rules installed against ci/udev/99-blerig.rules; \
                with RIG, each radio's adapter, each board's serial port and hub port. Every problem comes with \
                its fix.

                Exit status: 0 when every binding of RIG resolves (problems of the host alone are reported, not \
                failed), 3 when one does not, 2 when RIG does not load.
                """)

        @Argument(help: ArgumentHelp("A rig file whose bindings to resolve.", valueName: "RIG"))
        var rig: String?

        func run() throws {
            let report: DoctorReport
            do { report = try Benches.Doctor.examine(rigFile: rig) } catch {
                LineOutput.standardError.print("blerig: \(error)")
                throw ExitCode(ExitStatus.usage.rawValue)
            }
            for line in report.lines { LineOutput.standardOutput.print(line) }
            if report.hasUnresolvedBindings { throw ExitCode(ExitStatus.infrastructure.rawValue) }
        }
    }
}
