import ArgumentParser
import Foundation
import History
import Orchestrator
import Reports
import Synchronization

/// `--history` for the commands that read history.
struct HistoryOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "The history: a SQLite file, or postgres://user@host/db (postgres://user@/db?host=/socket/dir).",
            valueName: "PATH|URL"))
    var history = "reports/history.sqlite"

    func location() throws -> HistoryLocation {
        do { return try HistoryLocation(history) } catch { throw ValidationError(error.message) }
    }

    /// Opens the history, or exits with the infrastructure status saying why.
    func open() async throws -> any RunHistory {
        let location = try location()
        do { return try await History.open(location) } catch {
            LineOutput.standardError.print("blerig: \(error)")
            throw ExitCode(ExitStatus.infrastructure.rawValue)
        }
    }
}

/// Runs `body` against the history and closes it; a history error exits with the infrastructure status, or the
/// usage status when it is about what was asked for (`usage: true`).
func withHistory(
    _ options: HistoryOptions, usage: Bool = false, _ body: (any RunHistory) async throws(HistoryError) -> Void
) async throws {
    let history = try await options.open()
    do {
        try await body(history)
        await history.close()
    } catch {
        await history.close()
        LineOutput.standardError.print("blerig: \(error)")
        throw ExitCode((usage ? ExitStatus.usage : .infrastructure).rawValue)
    }
}

func printJSON<T: Encodable>(_ value: T) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    encoder.dateEncodingStrategy = .iso8601
    encoder.nonConformingFloatEncodingStrategy = .convertToString(
        positiveInfinity: "+Inf", negativeInfinity: "-Inf", nan: "NaN")
    LineOutput.standardOutput.print(String(decoding: try encoder.encode(value), as: UTF8.self))
}

extension Blerig {
    struct HistoryCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "history",
            abstract: "List the runs stored in history, or import a run directory into it.",
            discussion: """
                `blerig run` stores every run in <out>/history.sqlite, or in the database --history names: a \
                SQLite file for one host, PostgreSQL for several that share boards and baselines.

                Exit status:
                \(ExitStatus.table)
                """,
            subcommands: [List.self, Import.self], defaultSubcommand: List.self)
    }
}

extension Blerig.HistoryCommand {
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List stored runs, newest first.")

        @OptionGroup var options: HistoryOptions

        @Option(help: "Only runs of this rig (its rig: name).")
        var rig: String?

        @Option(help: "At most this many runs.")
        var last: Int?

        @Flag(help: "Print a JSON array of runs instead.")
        var json = false

        func validate() throws {
            if let last, last < 1 { throw ValidationError("--last must be at least 1") }
        }

        func run() async throws {
            let (rig, last, json) = (rig, last, json)
            try await withHistory(options) { history throws(HistoryError) in
                let runs = try await history.runs(rig: rig, last: last)
                if json {
                    do { try printJSON(runs) } catch {
                        throw HistoryError(database: history.location.description, message: "\(error)")
                    }
                    return
                }
                for line in HistoryText.runs(runs, baselines: try await history.baselines()) {
                    LineOutput.standardOutput.print(line)
                }
            }
        }
    }

    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Store runs from their report directories (run.jsonl), e.g. runs made with another --history.")

        @OptionGroup var options: HistoryOptions

        @Argument(help: ArgumentHelp("Run directories written by blerig run.", valueName: "run-dir"))
        var directories: [String]

        func run() async throws {
            let directories = directories
            try await withHistory(options) { history throws(HistoryError) in
                for directory in directories {
                    let rows = try RunImport.read(directory: directory)
                    try await history.store(rows)
                    LineOutput.standardOutput.print(
                        "stored \(rows.run.runID): \(rows.boards.count) boards, \(rows.outcomes.count) outcomes, "
                            + "\(rows.values.count) values, \(rows.samples.count) sample sets")
                }
            }
        }
    }
}

/// The history, lease and baseline options of `blerig run`.
struct RunHistoryOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Where the run is stored and its boards leased: a SQLite file (default <out>/history.sqlite) or "
                + "postgres://user@host/db.",
            valueName: "PATH|URL"))
    var history: String?

    @Option(
        help: ArgumentHelp(
            "How long to wait for a board another run holds before giving up on it (90, 90s, 15m).",
            valueName: "DURATION"),
        transform: { try parseDuration($0, flag: "--lease-timeout") })
    var leaseTimeout: Duration = DatabaseLeasing.defaultTimeout

    @Option(
        help: ArgumentHelp(
            "How long a lease outlives its holder's last heartbeat (renewed every third of it).",
            valueName: "DURATION", visibility: .hidden),
        transform: { text throws in
            let duration = try parseDuration(text, flag: "--lease-ttl")
            guard duration >= .milliseconds(300) else {
                throw ValidationError("--lease-ttl: '\(text)' is not a duration of at least 0.3 s")
            }
            return duration
        })
    var leaseTTL: Duration = DatabaseLeasing.defaultTTL

    func location(out: String) throws -> HistoryLocation {
        guard let history else { return .beside(reports: out) }
        do { return try HistoryLocation(history) } catch { throw ValidationError(error.message) }
    }
}

extension RunHistoryOptions {
    /// The run's history, opened when the campaign first needs it (a named `--baseline` opens it to resolve).
    func recording(out: String, rigFile: String, errors: LineOutput) async throws -> RunRecording {
        RunRecording(try location(out: out), rigFile: rigFile, leaseTimeout: leaseTimeout, leaseTTL: leaseTTL) {
            errors.print("blerig: \($0)")
        }
    }
}

/// Stores a run in history as soon as its result is folded (``RunOptions/resultReady``), beside the rendering of its
/// final reports rather than after them.
final class HistoryStoring: Sendable {
    private let recording: RunRecording
    private let task = Mutex<Task<Result<String, HistoryError>, Never>?>(nil)

    init(_ recording: RunRecording) { self.recording = recording }

    /// Starts storing `result`; a second call does nothing.
    func start(_ result: RunResult) {
        let recording = recording
        task.withLock { task in
            guard task == nil else { return }
            task = Task {
                do throws(HistoryError) { return .success(try await recording.store(result)) } catch {
                    return .failure(error)
                }
            }
        }
    }

    /// Waits for the store (starting it if the run never said its result was ready), prints where the run went,
    /// and closes the history; false (after saying why) when it could not be stored.
    func finish(_ result: RunResult, output: LineOutput, errors: LineOutput) async -> Bool {
        start(result)
        let outcome = await task.withLock { $0 }!.value
        await recording.close()
        switch outcome {
        case .success(let line):
            output.print(line)
            return true
        case .failure(let error):
            errors.print("blerig: the run was not stored: \(error)")
            return false
        }
    }
}
