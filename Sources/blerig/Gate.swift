import ArgumentParser
import Foundation
import Gates
import Orchestrator
import Reports

/// `--gates` and `--baseline`, shared by `run` and `gate`.
struct GateOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "A gates file (docs/gates.md); for `run` it replaces the rig's `gates:`.", valueName: "gates.yaml"))
    var gates: String?

    @Option(
        help: ArgumentHelp(
            "The baseline regression gates compare with: a run directory (reports/<run-id>) or a baseline's name.",
            valueName: "RUN_DIR|NAME"))
    var baseline: String?

    /// The judge for a campaign of `rig`: `--gates`, else the rig's `gates:`; nil when neither names a file.
    func judge(for rig: RigConfig) async throws(CampaignError) -> (any RunJudge)? {
        let file: GatesFile?
        do { file = try GatesFile.load(for: rig, override: gates) } catch { throw .rig(error) }
        guard let file else {
            if baseline != nil {
                throw .argument(flag: "--baseline", message: "there are no gates to compare (give --gates FILE)")
            }
            return nil
        }
        return GateJudge(file, baseline: try await resolvedBaseline())
    }

    func resolvedBaseline() async throws(CampaignError) -> (any BaselineSource)? {
        guard let baseline else { return nil }
        do { return try await BaselineReference.resolve(baseline) } catch {
            throw .argument(flag: "--baseline", message: String(error.message.trimmingPrefix("--baseline: ")))
        }
    }
}

extension Blerig {
    struct Gate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Judge a stored run by a gates file, against a baseline run for regression gates.",
            discussion: """
                Reads <RUN>/run.jsonl (the run's own samples) and the gates file, and prints one verdict per gate: \
                held, breached, or not enough data. Regression gates compare the raw samples of each board with \
                the same board in --baseline (a run directory, or a baseline's name). The run directory is not \
                changed. See docs/gates.md.

                Exit status:
                  0    no gate was breached
                  2    the arguments, the gates file or a run directory are wrong
                  4    a gate was breached
                """)

        @Argument(help: ArgumentHelp("The run directory to judge (reports/<run-id>).", valueName: "RUN"))
        var run: String

        @OptionGroup var gating: GateOptions

        @Flag(help: "Print gates.json instead of the table.")
        var json = false

        func validate() throws {
            guard gating.gates != nil else { throw ValidationError("--gates FILE is required") }
        }

        func run() async throws {
            let errors = LineOutput.standardError
            let result: RunResult
            do { result = try StoredRun.load(run) } catch {
                errors.print("blerig: \(error)")
                throw ExitCode(ExitStatus.usage.rawValue)
            }
            let boards = Dictionary(
                result.boards.map { ($0.id, $0.profile ?? "") }, uniquingKeysWith: { first, _ in first })
            let file: GatesFile
            do { file = try GatesFile.load(contentsOf: gating.gates!, boards: boards) } catch {
                errors.print("blerig: \(error.report)")
                throw ExitCode(ExitStatus.usage.rawValue)
            }
            let baseline: (any BaselineSource)?
            do { baseline = try await gating.resolvedBaseline() } catch {
                errors.print("blerig: \(error.report)")
                throw ExitCode(ExitStatus.usage.rawValue)
            }
            let report = await GateJudge(file, baseline: baseline).report(result)
            LineOutput.standardOutput.print(String((json ? report.json() : report.text).dropLast()))
            if report.isBreached { throw ExitCode(ExitStatus.gateBreached.rawValue) }
        }
    }
}
