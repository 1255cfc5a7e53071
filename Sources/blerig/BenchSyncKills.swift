import ArgumentParser
import Benches
import Benchmarks
import Foundation
import Orchestrator

extension Blerig.Bench {
    struct SyncKills: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "sync-kills",
            abstract: "Kill the sync agent with SIGKILL at random instants, restart it, and count lost and duplicate readings.",
            discussion: """
                An esp-point is served on rootcanal (from the interop venv: make interop-deps) and the real ingest \
                runs in this process. Each round the board gets new readings, `blerig sync-agent` starts on the same \
                queue file and is killed at an instant drawn (from --seed) uniformly over an uninterrupted sync's \
                duration. After --kills kills a last agent finishes; the ingest must then hold every reading the \
                board made exactly once, and the queue must be empty.

                Exit status:
                \(ExitStatus.table([
                    (.passed, "0 readings lost, 0 duplicates, the queue empty"),
                    (.checksFailed, "a reading was lost or duplicated, or the queue kept some"),
                    (.usage, "the arguments are wrong; nothing ran"),
                    (.infrastructure, "rootcanal, the ingest or an agent could not be run (the error is printed)"),
                ]))
                """)

        @Option(help: "How many SIGKILLs to land on a running agent.")
        var kills = 1_000

        @Option(help: "The seed the kill instants are drawn from.")
        var seed: UInt64 = 1

        @Option(help: "New readings on the board before each agent run.")
        var readingsPerKill = 20

        func validate() throws {
            guard (1...100_000).contains(kills) else { throw ValidationError("--kills must be 1 to 100000") }
            guard (1...2_000).contains(readingsPerKill) else {
                throw ValidationError("--readings-per-kill must be 1 to 2000")
            }
        }

        func run() async throws {
            let out = LineOutput.standardOutput
            let scratch = try scratchDirectory()
            defer { try? FileManager.default.removeItem(atPath: scratch) }
            var options = SyncKillCampaign.Options(
                kills: kills, seed: seed, binary: ChildProcess.currentExecutable, scratch: scratch)
            options.readingsPerKill = readingsPerKill
            let result: SyncKillCampaign.Result
            do {
                result = try await SyncKillCampaign.run(options) { line in LineOutput.standardError.print(line) }
            } catch {
                LineOutput.standardError.print("blerig: \(error)")
                throw ExitCode(ExitStatus.infrastructure.rawValue)
            }
            for line in result.lines { out.print(line) }
            if !result.passed { throw ExitCode(ExitStatus.checksFailed.rawValue) }
        }
    }
}
