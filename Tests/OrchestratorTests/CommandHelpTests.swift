import Foundation
import Testing

@testable import Orchestrator

/// Each command's `--help` is its own manual: it ends with the exit statuses that command uses, not `run`'s.
@Suite("blerig --help per command")
struct CommandHelpTests {
    /// The statuses listed under "Exit status" in a help text.
    static func statuses(in help: String) -> [Int32] {
        guard let range = help.range(of: "Exit status") else { return [] }
        return help[range.upperBound...].split(separator: "\n").dropFirst().compactMap { line -> Int32? in
            // `  0    meaning` or `  130  meaning`: the code, then at least two spaces.
            let trimmed = line.drop { $0 == " " }
            guard line.count - trimmed.count >= 2 else { return nil }
            let digits = trimmed.prefix { $0.isNumber }
            guard !digits.isEmpty, trimmed.dropFirst(digits.count).hasPrefix("  ") else { return nil }
            return Int32(digits)
        }
    }

    @Test(
        "each command lists exactly its own exit statuses",
        arguments: [
            (["run"], ExitStatus.allCases.map(\.rawValue)), (["validate"], [0, 2]), (["suites"], [0, 2]),
            (["adapters"], [0, 2, 3]), (["bench"], [0, 2, 3]), (["bench", "campaign"], [0, 2, 3]),
            (["bench", "scale"], [0, 2, 3]), (["bench", "hci"], [0, 2, 3]), (["bench", "ota"], [0, 2, 3]),
            (["bench", "sync"], [0, 2, 3]), (["bench", "gates"], [0, 2, 3]), (["scan"], [0, 2, 3, 130]), (["probe"], [0, 1, 2, 3, 130]),
            (["central"], [0, 1, 130, 2, 3]), (["sync-agent"], [0, 2, 3]), (["gate"], [0, 2, 4]), (["power"], [0, 2, 3]),
            (["reset"], [0, 2, 3]), (["console"], [0, 2, 3]),
        ] as [([String], [Int32])])
    func exitStatuses(command: [String], expected: [Int32]) async throws {
        let outcome = try await CommandLineTests.blerig(command + ["--help"])
        #expect(outcome.status == 0)
        #expect(outcome.output.contains("USAGE: blerig \(command.joined(separator: " "))"), "\(outcome.output)")
        #expect(Self.statuses(in: outcome.output) == expected, "\(outcome.output)")
    }

    /// The commands a help text lists under SUBCOMMANDS (`  run    Run a rig's…`; not the wrapped lines).
    static func subcommands(in help: String) -> [String] {
        guard let range = help.range(of: "SUBCOMMANDS:\n") else { return [] }
        return help[range.upperBound...].split(separator: "\n", omittingEmptySubsequences: false)
            .prefix { !$0.isEmpty }
            .compactMap { line -> String? in
                guard line.hasPrefix("  "), let first = line.dropFirst(2).first, first.isLowercase else { return nil }
                let name = line.dropFirst(2).prefix { $0 != " " }
                return name == "help" ? nil : String(name)
            }
    }

    /// A line break the help's own text has, mid-sentence: the help wraps at 80 columns, so a line under 60 that
    /// does not end a sentence or clause, followed by one that goes on in lower case, came from a newline in the
    /// source (a multi-line string without its trailing backslashes). Only the text before USAGE.
    static func brokenLines(in help: String) -> [String] {
        let text = help.components(separatedBy: "\nUSAGE:").first ?? help
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        return zip(lines, lines.dropFirst()).compactMap { line, next in
            guard !line.isEmpty, line.count < 60, let last = line.last, !".:;)".contains(last),
                next.first?.isLowercase == true
            else { return nil }
            return "\(line) | \(next)"
        }
    }

    @Test("no command's help breaks a sentence where its source had a line break")
    func noBrokenSentences() async throws {
        let root = try await CommandLineTests.blerig(["--help"])
        var commands = Self.subcommands(in: root.output).map { [$0] }
        for command in commands {
            let help = try await CommandLineTests.blerig(command + ["--help"])
            commands += Self.subcommands(in: help.output).map { command + [$0] }
        }
        #expect(commands.count > 25, "\(commands)")
        #expect(commands.contains(["sync", "requeue"]))
        #expect(Self.brokenLines(in: "never dropped. Once the cause is\nfixed, requeue them\n") != [])
        for command in [[]] + commands {
            let help = try await CommandLineTests.blerig(command + ["--help"])
            #expect(Self.brokenLines(in: help.output) == [], "blerig \(command.joined(separator: " ")) --help")
        }
    }

    @Test("--version prints the one version string and exits 0")
    func version() async throws {
        let outcome = try await CommandLineTests.blerig(["--version"])
        #expect(outcome.status == 0)
        #expect(outcome.output == BlerigVersion.current + "\n")
        #expect(BlerigVersion.current.split(separator: ".").count == 3)
    }

    @Test("the root help names the commands, and says the other commands use some of run's statuses")
    func rootHelp() async throws {
        let outcome = try await CommandLineTests.blerig(["--help"])
        #expect(outcome.status == 0)
        for command in ["run", "validate", "suites", "bench", "scan", "probe", "adapters"] {
            #expect(outcome.output.contains("  \(command)"), "\(command)")
        }
        #expect(Self.statuses(in: outcome.output) == ExitStatus.allCases.map(\.rawValue))
    }
}
