import ArgumentParser
import Benches
import Orchestrator

extension Blerig {
    struct Validate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check a rig file without running it: every problem at once, with file:line:column.",
            discussion: """
                Checks what `blerig run` checks before it starts: the YAML, every key and value, the bindings \
                (board ids, serial and hub ports, addresses, radios), each selected suite's options, and whether \
                this build can drive the rig's radios. Nothing is opened, started or written. Problems go to \
                stderr, one per line; a valid rig prints one line on stdout.

                Exit status:
                \(ExitStatus.table(RigValidation.exitStatuses))
                """)

        @Argument(help: ArgumentHelp("The rig file (YAML).", valueName: "rig.yaml"))
        var rig: String

        func run() async throws {
            switch RigValidation.check(rigFile: rig, benches: BenchBuilder()) {
            case .valid(let summary):
                LineOutput.standardOutput.print(summary)
            case .invalid(let problems):
                for problem in problems { LineOutput.standardError.print(problem) }
                LineOutput.standardError.print(
                    "blerig: \(problems.count == 1 ? "1 problem" : "\(problems.count) problems") in \(rig)")
                throw ExitCode(ExitStatus.usage.rawValue)
            }
        }
    }
}
