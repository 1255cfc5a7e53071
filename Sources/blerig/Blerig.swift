import ArgumentParser
import Benches
import Foundation
import Orchestrator

@main
struct Blerig: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "blerig",
        abstract: "Run Bluetooth LE test campaigns against a farm of boards, real or virtual.",
        discussion: """
            A rig file names the radios, the boards (esp-point, nano33-ble-sense, hrm) and the suites to run. With \
            `radio: virtual` the boards are simulated behind a modelled radio link in virtual time, deterministic \
            from the seed: rigs/virtual.yaml is such a rig. `blerig scan` and `blerig probe` look at the air \
            around one radio: --radio virtual:rigs/virtual.yaml tries them on the virtual farm.

            `blerig validate RIG` checks a rig file without running it; `blerig suites` lists the suites, their \
            options and the metrics each reports. Each command's --help gives the exit statuses it uses.

            Exit status (of `run`; the other commands use some of these):
            \(ExitStatus.table)
            """,
        version: BlerigVersion.current,
        subcommands: [
            Run.self, Validate.self, Suites.self, Gate.self, Bench.self, Scan.self, Probe.self, Adapters.self,
            Central.self, SyncAgentCommand.self, SyncCommand.self, Power.self, Reset.self, Console.self, Doctor.self, Discover.self,
            HistoryCommand.self, Compare.self, Baseline.self, Leases.self,
        ])

    /// Parses and runs; argument errors exit with the usage status blerig documents, not the parser's own 64.
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var command = command as? any AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch {
            if exitCode(for: error) == .validationFailure {
                LineOutput.standardError.print(fullMessage(for: error))
                Foundation.exit(ExitStatus.usage.rawValue)
            }
            exit(withError: error)
        }
    }
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

    @Option(
        help: ArgumentHelp("Run only these boards of the rig, comma-separated (their ids).", valueName: "a,b"),
        transform: { $0.split(separator: ",", omittingEmptySubsequences: false).map {
            String($0).trimmingCharacters(in: .whitespaces)
        } })
    var boards: [String]?

    func campaign(rerun: RerunPlan? = nil) throws(CampaignError) -> Campaign {
        try Campaign(rigFile: rig, seed: seed, suites: suites, boards: boards, rerun: rerun, benches: BenchBuilder())
    }
}

extension Blerig {
    struct Run: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run a rig's suites on every board and write the reports.",
            discussion: """
                Boards run in parallel, each on a radio link the scheduler gives it; each prints its progress. \
                <out>/<run-id>/ is created before anything runs; run.jsonl, captures/<board>.btsnoop and \
                console/<board>.log grow while the run goes on, and junit.xml, summary.md, report.html, metrics.prom and \
                summary.txt are written at the end.

                SIGINT or SIGTERM (or --timeout) stops the run: checks in flight are marked interrupted, the boards \
                are left as the rig's after_run says, and every report is written. A second signal exits at once.

                --rerun-failed RUN reads RUN's run.jsonl (RUN is a run directory, or a run id under --out) and runs, \
                on each board, only the suites that failed, erred, were interrupted or did not run there; a run in \
                which everything passed leaves nothing to run (exit 0).

                Exit status:
                \(ExitStatus.table)
                """)

        @OptionGroup var campaign: CampaignOptions

        @Option(help: ArgumentHelp("Directory the run's report directory is created in.", valueName: "DIR"))
        var out = "reports"

        @Option(
            help: ArgumentHelp(
                "Stop the run after this much wall-clock time (90, 90s, 15m, 2h), as SIGINT would.",
                valueName: "DURATION"),
            transform: { try parseDuration($0, flag: "--timeout") })
        var timeout: Duration?

        @Option(
            help: ArgumentHelp(
                "Run again only what failed in an earlier run: its directory, or its id under --out.",
                valueName: "RUN"))
        var rerunFailed: String?

        @Flag(name: .shortAndLong, help: "Print only failures and the summary.")
        var quiet = false

        @Option(
            name: .customLong("push-metrics"),
            help: ArgumentHelp(
                "After the run, PUT its metrics to this Prometheus Pushgateway (group job=blerig, rig=<rig>).",
                valueName: "URL"))
        var pushMetrics: String?

        @OptionGroup var history: RunHistoryOptions

        @OptionGroup var gating: GateOptions

        func validate() throws {
            guard !out.isEmpty else { throw ValidationError("--out must name a directory, not ''") }
            if let pushMetrics {
                do { _ = try MetricsPush(pushMetrics) } catch { throw ValidationError(error.description) }
            }
        }

        func run() async throws {
            let output = LineOutput.standardOutput
            let errors = LineOutput.standardError
            let control = RunControl()
            let signals = SignalWatcher(control: control) { errors.print("blerig: \($0)") }
            defer { withExtendedLifetime(signals) {} }
            let quiet = quiet
            let result: CampaignResult
            let recording = try await history.recording(out: out, rigFile: campaign.rig, errors: errors)
            let storing = HistoryStoring(recording)
            do {
                let rerun = try rerunFailed.map { reference throws(CampaignError) in
                    try RerunPlan.load(reference, outputRoot: out)
                }
                let campaign = try campaign.campaign(rerun: rerun)
                let judge = try await gating.judge(for: campaign.rig, catalog: HistoryBaselines(recording.history))
                result = try await campaign.run(
                    RunOptions(
                        outputRoot: out, timeout: timeout, leasing: recording.leasing, judge: judge,
                        provenance: recording.provenance, resultReady: storing.start),
                    control: control
                ) { line in
                    if !quiet || line.contains("FAILED") || line.contains("ERROR") || line.contains("INTERRUPTED")
                        || line.hasPrefix("run ")
                    {
                        output.print(line)
                    }
                }
            } catch {
                errors.print("blerig: \(error.report)")
                if error.exitStatus == .passed { return }
                throw ExitCode(error.exitStatus.rawValue)
            }
            output.print("")
            output.print(result.summary)
            for line in result.result.failingCheckLines() { output.print(line) }
            for problem in result.problems { errors.print("blerig: \(problem)") }
            if let rescue = result.rescue {
                errors.print("blerig: what the report directory could not take is in \(rescue)/")
            }
            if let interruption = result.interruption { errors.print("blerig: run stopped: \(interruption)") }
            var status = result.status
            if let pushMetrics {
                do {
                    let push = try MetricsPush(pushMetrics)
                    try await push.push(result.result)
                    output.print("metrics pushed to \(push.target(rig: result.result.run?.rig ?? ""))")
                } catch {
                    errors.print("blerig: \(error)")
                    if status == .passed { status = .infrastructure }
                }
            }
            if !(await storing.finish(result.result, output: output, errors: errors)), status == .passed {
                status = .infrastructure
            }
            output.print(result.reportsLine)
            if status != .passed { throw ExitCode(status.rawValue) }
        }
    }
}

func format(_ value: Double) -> String { String(format: "%.3f", value) }
