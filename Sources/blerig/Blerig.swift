import ArgumentParser
import Foundation
import Orchestrator

@main
struct Blerig: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "blerig",
        abstract: "Run Bluetooth LE test campaigns against a farm of boards, real or virtual.",
        discussion: """
            A rig file names the radio, the boards (esp-point, nano33-ble-sense, hrm) and the suites to run. With \
            `radio: virtual` the boards are simulated behind a modelled radio link in virtual time, deterministic \
            from the seed: rigs/virtual.yaml is such a rig.
            """,
        subcommands: [Run.self, Bench.self])
}

/// Options shared by the commands that run a campaign.
struct CampaignOptions: ParsableArguments {
    @Argument(help: ArgumentHelp("The rig file (YAML).", valueName: "rig.yaml"))
    var rig: String

    @Option(help: ArgumentHelp("Seed for the virtual farm, overriding the rig file's `virtual.seed`.", valueName: "N"))
    var seed: UInt64?

    @Option(
        help: ArgumentHelp(
            "Run only these suites of the rig, comma-separated (\(Campaign.suiteNames.joined(separator: ", "))).",
            valueName: "a,b"),
        transform: { $0.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) } })
    var suites: [String]?

    func campaign() throws(CampaignError) -> Campaign {
        try Campaign(rigFile: rig, seed: seed, suites: suites)
    }
}

extension Blerig {
    struct Run: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run a rig's suites on every board and write the reports.",
            discussion: """
                Boards run in parallel; each prints its progress. At the end a summary table is printed and \
                <out>/<run-id>/ holds junit.xml, run.jsonl, summary.txt, captures/<board>.btsnoop and \
                console/<board>.log.

                Exit status: 0 every check passed; 1 a check failed or erred; 2 the rig file or the arguments are \
                wrong, or the reports could not be written.
                """)

        @OptionGroup var campaign: CampaignOptions

        @Option(help: ArgumentHelp("Directory the run's report directory is created in.", valueName: "DIR"))
        var out = "reports"

        @Flag(name: .shortAndLong, help: "Print only failures and the summary.")
        var quiet = false

        func run() async throws {
            let quiet = quiet
            let result: CampaignResult
            do {
                result = try await campaign.campaign().run(outputRoot: out) { line in
                    if !quiet || line.contains("FAILED") || line.contains("ERROR") { print(line) }
                }
            } catch {
                FileHandle.standardError.write(Data("blerig: \(error.report)\n".utf8))
                throw ExitCode(2)
            }
            print("")
            print(result.summary)
            for line in result.result.failingCheckLines() { print(line) }
            print(
                "reports: \(result.directory)/ (junit.xml, run.jsonl, summary.txt, captures/, console/); "
                    + "\(format(result.virtualTime.seconds)) s of virtual time in \(format(result.wallTime.seconds)) s")
            if !result.passed { throw ExitCode(1) }
        }
    }

    struct Bench: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Time a virtual campaign: wall time, virtual time and simulation work per run.",
            discussion:
                "Runs the campaign --runs times into a temporary directory and prints one line per run and the median.")

        @OptionGroup var campaign: CampaignOptions

        @Option(help: "How many times to run the campaign.")
        var runs = 3

        func run() async throws {
            let results: [CampaignResult]
            do { results = try await campaign.campaign().bench(runs: runs) } catch {
                FileHandle.standardError.write(Data("blerig: \(error.report)\n".utf8))
                throw ExitCode(2)
            }
            for (index, result) in results.enumerated() {
                let counts = result.result.counts
                let speed = result.virtualTime.seconds / max(result.wallTime.seconds, 1e-9)
                print(
                    "run \(index + 1): wall \(format(result.wallTime.seconds)) s, "
                        + "virtual \(format(result.virtualTime.seconds)) s (\(format(speed)) × real time), "
                        + "\(result.timersFired) simulation timers, "
                        + "checks \(counts.passed) passed / \(counts.failed) failed / \(counts.errors) errors")
            }
            let walls = results.map(\.wallTime.seconds).sorted()
            print("median wall time over \(walls.count) run(s): \(format(walls[walls.count / 2])) s")
        }
    }
}

private func format(_ value: Double) -> String { String(format: "%.3f", value) }
