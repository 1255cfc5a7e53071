import ArgumentParser
import Benches
import Benchmarks
import Foundation
import Orchestrator

extension Blerig {
    struct Bench: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Measure campaigns: wall time, CPU time, peak memory and bench time, each run in its own process.",
            discussion: """
                Exit status (of each bench command):
                \(ExitStatus.table(exitStatuses))
                """,
            subcommands: [
                Campaign.self, Scale.self, HCIComparison.self, OTA.self, OTAFaults.self, Sync.self, SyncKills.self,
                GatesBench.self, Reports.self, HistoryInsert.self,
            ],
            defaultSubcommand: Campaign.self)

        /// How every `blerig bench` command exits: a measurement prints its numbers, whatever the runs it measured
        /// concluded.
        static let exitStatuses: [(ExitStatus, String)] = [
            (.passed, "the measurements ran and are printed (the runs measured may have failed checks)"),
            (.usage, "the arguments are wrong; nothing ran"),
            (.infrastructure, "a measured run could not be started or did not report (the error is printed)"),
        ]

        /// The exit-status section of a bench command's discussion.
        static var exitSection: String { "Exit status:\n\(ExitStatus.table(exitStatuses))" }
    }
}

extension Blerig.Bench {
    struct Campaign: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run a rig --runs times, each in a child process, and print what each run cost.",
            discussion: """
                Peak RSS and CPU time come from wait4(2), as /usr/bin/time -v reports them.

                \(Blerig.Bench.exitSection)
                """)

        @Argument(help: ArgumentHelp("The rig file (YAML).", valueName: "rig.yaml"))
        var rig: String

        @Option(help: "How many times to run it.")
        var runs = 3

        func validate() throws {
            guard runs >= 1 else { throw ValidationError("--runs must be at least 1") }
        }

        func run() async throws {
            let scratch = try scratchDirectory()
            defer { try? FileManager.default.removeItem(atPath: scratch) }
            var walls: [Double] = []
            for index in 1...runs {
                let sample: CampaignBenchmark.Sample
                do {
                    sample = try CampaignBenchmark.measure(
                        executable: ChildProcess.currentExecutable, rig: rig, scratch: scratch)
                } catch {
                    LineOutput.standardError.print("blerig: \(error)")
                    throw ExitCode(ExitStatus.infrastructure.rawValue)
                }
                try? FileManager.default.removeItem(atPath: sample.directory)
                walls.append(sample.cost.wall.seconds)
                LineOutput.standardOutput.print(
                    "run \(index): wall \(format(sample.cost.wall.seconds)) s, CPU \(format(sample.cost.cpu.seconds)) s, "
                        + "peak RSS \(String(format: "%.1f", Double(sample.cost.peakRSSBytes) / 1_048_576)) MB, "
                        + "bench time \(format(sample.benchTime.seconds)) s, "
                        + "\(sample.checks) checks (\(sample.notPassed) not passed), exit \(sample.cost.status)")
            }
            walls.sort()
            LineOutput.standardOutput.print(
                "median wall time over \(walls.count) run(s): \(format(walls[walls.count / 2])) s")
        }
    }

    struct Scale: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "How cost grows with boards: a generated virtual rig per size, on one radio and on several.",
            discussion: """
                Each size runs in its own process: discovery, --connections handshakes and the commands suite per \
                board, on virtual radios of 8 links each. Then --air-boards boards on --air-radios radios with an \
                air per radio (airs: per_radio) run pinned to each of --cores cores, with the speed-up over the first.

                \(Blerig.Bench.exitSection)
                """)

        @Option(help: "Board counts, comma-separated.", transform: Self.integers)
        var sizes: [Int] = [1, 4, 16, 64, 256, 1024]

        @Option(help: "Radio counts, comma-separated.", transform: Self.integers)
        var radios: [Int] = [1, 8]

        @Option(help: "Handshakes per board.")
        var connections = 3

        @Option(
            help: "Core counts for the separate-airs table, comma-separated (runs pinned with taskset); 0 skips it.",
            transform: Self.coreCounts)
        var cores: [Int] = [1, 2]

        @Option(help: "Boards of the separate-airs rig.")
        var airBoards = 1024

        @Option(help: "Radios of the separate-airs rig, each with an air of its own.")
        var airRadios = 8

        static func coreCounts(_ text: String) throws -> [Int] {
            if text.trimmingCharacters(in: .whitespaces) == "0" { return [] }
            return try text.split(separator: ",").map { part in
                guard let value = Int(part.trimmingCharacters(in: .whitespaces)), (1...1024).contains(value) else {
                    throw ValidationError("'\(part)' is not a core count from 1 to 1024")
                }
                return value
            }
        }

        static func integers(_ text: String) throws -> [Int] {
            try text.split(separator: ",").map { part in
                guard let value = Int(part.trimmingCharacters(in: .whitespaces)), (1...4096).contains(value) else {
                    throw ValidationError("'\(part)' is not a count from 1 to 4096")
                }
                return value
            }
        }

        func run() async throws {
            let scratch = try scratchDirectory()
            defer { try? FileManager.default.removeItem(atPath: scratch) }
            let benchmark = ScaleBenchmark(
                sizes: sizes, radioCounts: radios, connections: connections, cores: cores, airBoards: airBoards,
                airRadios: airRadios)
            do {
                try benchmark.run(executable: ChildProcess.currentExecutable, scratch: scratch) { row in
                    LineOutput.standardOutput.print(row)
                }
            } catch {
                LineOutput.standardError.print("blerig: \(error)")
                throw ExitCode(ExitStatus.infrastructure.rawValue)
            }
        }
    }
}

extension Blerig.Bench {
    struct HCIComparison: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "hci",
            abstract: "blerig's central against Bumble's, side by side, on rootcanal with a Bumble peripheral.",
            discussion: """
                One run starts rootcanal (1 ms tick) and peripheral.py, then times each central in turn against that \
                peripheral: --handshakes handshakes (connect, MTU, discovery, subscribe, disconnect), --writes write \
                requests, and a notification stream. Needs the interop venv (make interop-deps) and the Bumble peer \
                scripts that ship with blerig in share/blerig/peers (found above the executable's directory, then \
                above the current one).

                \(Blerig.Bench.exitSection)
                """)

        @Option(help: "Handshakes per central.")
        var handshakes = 50

        @Option(
            help: """
                Parts each central's handshakes are timed in, the centrals taking turns (blerig, campaign, Bumble, \
                then backwards), so that a change in the machine's load weighs on all three alike.
                """)
        var parts = 10

        @Option(help: "Write requests per central, each after a random wait of up to one rootcanal tick.")
        var writes = 1000

        @Option(help: "Seconds of notification stream per central.")
        var streamSeconds = 3

        @Flag(help: "Print the table, the settings and every sample as JSON instead.")
        var json = false

        func validate() throws {
            guard (1...10_000).contains(handshakes) else { throw ValidationError("--handshakes must be 1 to 10000") }
            guard (1...1000).contains(parts) else { throw ValidationError("--parts must be 1 to 1000") }
            guard (1...100_000).contains(writes) else { throw ValidationError("--writes must be 1 to 100000") }
            guard (1...60).contains(streamSeconds) else { throw ValidationError("--stream-seconds must be 1 to 60") }
        }

        func run() async throws {
            var options = HCIBenchmark.Options()
            options.handshakes = handshakes
            options.parts = parts
            options.writes = writes
            options.streamDuration = .seconds(streamSeconds)
            let report: HCIBenchmarkReport
            let before = MachineLoad.now
            do {
                report = try await HCIBenchmark(options: options).run {
                    LineOutput.standardError.print("bench hci: \($0)")
                }
            } catch {
                LineOutput.standardError.print("blerig: \(error)")
                throw ExitCode(ExitStatus.infrastructure.rawValue)
            }
            if json {
                LineOutput.standardOutput.print(try report.json())
            } else {
                for line in report.lines { LineOutput.standardOutput.print(line) }
                let after = MachineLoad.now
                let steal = after.stealLine(since: before).map { "; over the run, \($0)" } ?? ""
                LineOutput.standardOutput.print("before: \(before.line); after: \(after.line)\(steal)")
            }
        }
    }
}

/// A fresh directory under the system's temporary directory.
func scratchDirectory() throws -> String {
    let path = FileManager.default.temporaryDirectory
        .appendingPathComponent("blerig-bench-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}
