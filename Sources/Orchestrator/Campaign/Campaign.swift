import BLECore
import BenchCore
import Foundation
import Reports

/// One run of a rig's suites over its boards: load the rig file, create `<out>/<run-id>/`, open the bench, run
/// every board's suites in parallel on the bench's clock, and write the reports. The same code runs on every
/// bench; which bench is the ``BenchFactory``'s business.
///
/// A run survives what users do to it: the report directory is checked before anything runs, the run log,
/// captures and consoles stream to disk as the run goes, and a stopped run (``RunControl``: a signal,
/// `--timeout`, the horizon, a failing disk) still ends with every report written.
public struct Campaign: Sendable {
    public let rig: RigConfig
    let suites: [PlannedSuite]
    /// Per board, the names of the suites it runs when fewer than all (`--rerun-failed`); nil: every board runs
    /// every suite.
    let boardSuites: [String: [String]]?
    /// The virtual farm's seed (the rig's, or the one given); unused on hardware.
    public let seed: UInt64
    let launcher: any BenchLauncher
    /// Starts the local ingest the `sync` suite needs on a wall-clock bench.
    let startLocalIngest: @Sendable () async throws -> (any LocalIngest)?

    /// The suites blerig has, in the order they run when a rig lists them all.
    public static var suiteNames: [String] { SuiteCatalog.names }

    /// How long a board may take from power-on to its first advertisement.
    public static let reachTimeout: Duration = .seconds(10)

    /// The most bench time a campaign simulates unless told otherwise.
    public static let horizon: Duration = .seconds(400 * 24 * 3600)

    /// Loads and checks the rig file (its suites' options included: every problem at once) and builds its bench's
    /// launcher with `benches`. `seed` overrides the rig's seed; `suites` narrows the rig's suites to those named,
    /// in the rig's order; `boards` narrows its boards the same way; `rerun` runs on each board only the suites
    /// that did not pass in an earlier run (``RerunPlan``).
    public init(
        rigFile path: String, seed: UInt64? = nil, suites names: [String]? = nil, boards boardIDs: [String]? = nil,
        rerun: RerunPlan? = nil, benches: any BenchFactory
    ) throws(CampaignError) {
        var rig: RigConfig
        var planned: [PlannedSuite]
        do { (rig, planned) = try RigFile.loadPlanned(contentsOf: path) } catch { throw .rig(error) }
        if let names { planned = try Self.select(suites: names, from: planned, rig: rig) }
        if let boardIDs { rig.boards = try Self.select(boards: boardIDs, rig: rig) }
        if let rerun {
            let chosen = try Self.select(rerun: rerun, suites: planned.map(\.name), rig: rig)
            rig.boards = rig.boards.filter { chosen[$0.id] != nil }
            boardSuites = chosen
        } else {
            boardSuites = nil
        }
        self.rig = rig
        suites = planned
        self.seed = seed ?? rig.virtual?.seed ?? VirtualFarmConfig.defaultSeed
        launcher = try benches.launcher(for: rig, seed: self.seed)
        startLocalIngest = { try await benches.startLocalIngest() }
    }

    /// The suites `board` runs, in the rig's order: all of them, unless a rerun chose fewer.
    func suites(for board: String) -> [PlannedSuite] {
        guard let names = boardSuites?[board] else { return suites }
        return suites.filter { names.contains($0.name) }
    }

    /// Runs the campaign and writes its reports under `options.outputRoot/<run-id>/`. Throws only when the run
    /// could not start (the report directory cannot be created); once it runs, it returns a result whatever
    /// happens, with the ``ExitStatus`` it ends with. `progress` gets one line per event worth showing.
    public func run(
        _ options: RunOptions = RunOptions(), control: RunControl = RunControl(),
        progress: @escaping @Sendable (String) -> Void = { _ in }
    ) async throws(CampaignError) -> CampaignResult {
        let wallStart = Date()
        let wallClock = ContinuousClock()
        let started = wallClock.now
        let files: RunFiles
        do {
            files = try RunFiles(
                root: options.outputRoot, rig: rig, seed: rig.isVirtual ? seed : nil, at: wallStart,
                progress: progress, control: control)
        } catch { throw .output(path: error.path, message: error.message) }
        let recorder = files.recorder
        recorder.emit(
            .runStarted(
                .init(
                    runID: files.directory.runID, rig: rig.name, rigFile: rig.location.file,
                    seed: rig.isVirtual ? seed : nil, radio: launcher.summary, wallStart: wallStart,
                    host: options.provenance.host ?? ProcessInfo.processInfo.hostName, plan: plan,
                    rigSHA256: options.provenance.rigSHA256, rigRevision: options.provenance.rigRevision)))
        let timer = options.timeout.map { limit in
            Task.detached {
                try await Task.sleep(for: limit)
                control.interrupt(.timeout(limit))
            }
        }
        var problems: [String] = []
        var end = RigInstant.origin
        var work: Int?
        var radios: [RadioReport] = []
        let localIngest: (any LocalIngest)?
        do { localIngest = try await startLocalIngestIfNeeded() } catch {
            problems.append("the local ingest server for the sync suite did not start: \(error)")
            localIngest = nil
        }
        // Leased before the bench opens: opening it may touch the boards, and on the virtual farm the bench is a
        // simulation in virtual time, where a wait on the wall clock does not belong.
        let leases = await CampaignLeases.acquire(
            rig, leasing: options.leasing, control: control, progress: progress)
        do {
            var run = CampaignRun(campaign: self, files: files, control: control, horizon: options.horizon)
            run.syncIngestURL = localIngest?.url
            run.unleased = leases.refused
            // A bench of independent parts (the virtual farm's airs, one per radio) runs them side by side.
            let outcome = try await launcher.withBenchParts { [run] bench in await run.run(on: bench) }
            end = outcome.value.map(\.end).max() ?? .origin
            let order = Dictionary(uniqueKeysWithValues: rig.radios.enumerated().map { ($1.id, $0) })
            radios = outcome.value.flatMap(\.radios).sorted { (order[$0.id] ?? 0) < (order[$1.id] ?? 0) }
            work = outcome.work
        } catch {
            let message = "the bench failed: \(error)"
            problems.append(message)
            control.interrupt(.infrastructure(message))
        }
        await leases.release(progress: progress)
        timer?.cancel()
        await localIngest?.stop()
        end = max(end, recorder.result.lastInstant)
        for board in rig.boards {
            recorder.emit(
                .attachment(
                    .init(board: board.id, kind: .btsnoop, path: CaptureFiles.relativePath(board.id), at: end)))
            recorder.emit(
                .attachment(.init(board: board.id, kind: .console, path: ConsoleFiles.relativePath(board.id), at: end)))
        }
        let wallTime = started.duration(to: wallClock.now)
        recorder.emit(
            .runFinished(
                .init(
                    at: end, wallDuration: wallTime, interruption: control.reason?.description,
                    interruptionClass: control.reason?.failureClass, nonPasses: recorder.result.nonPasses)))
        problems += files.finish()
        let result = recorder.result
        let judgement = await options.judge?.judge(result)
        options.resultReady?(result)
        let summary =
            result.summaryTable(keyStatistics: [.p50, .value], metrics: Self.summaryMetrics)
            + radios.map { $0.line + "\n" }.joined() + (judgement?.summary ?? "")
        let final = files.writeFinal(
            result, summary: summary, inputs: ReportInputs(gates: judgement?.verdicts ?? []),
            others: judgement?.files ?? [])
        problems += final.problems
        let status = Self.status(
            of: result, reason: control.reason, problems: problems, gatesBreached: judgement?.breached == true)
        return CampaignResult(
            runID: files.directory.runID, directory: files.directory.path, result: result, summary: summary,
            status: status, interruption: control.reason, problems: problems, rescue: final.rescue, radios: radios,
            wallTime: wallTime,
            benchTime: end.sinceOrigin, work: work, events: recorder.count, gates: judgement?.verdicts ?? [])
    }

    /// Every check the run means to run, per board: preflight, then each suite's checks for the board's profile.
    var plan: [PlannedBoard] {
        rig.boards.map { board in
            let checks =
                [PlannedCheck(suite: "preflight", test: "reachable")]
                + suites.flatMap { planned in
                    planned.suite.checkNames(for: board.profile).map { PlannedCheck(suite: planned.name, test: $0) }
                }
            return PlannedBoard(board: board.id, profile: board.profile.rawValue, checks: checks)
        }
    }

    /// The numbers the summary table shows per board; the JUnit file has them all.
    static let summaryMetrics = [
        "handshake.connect_ms", "handshake.ready_ms", "handshake.ready_warm_ms", "gatt.write_rtt_ms", "notify.rate_hz",
        "notify.gaps", "link.drop_rate", "ota.efficiency", "sync.readings_lost", "schedule.link_wait_ms",
    ]
}

/// How a campaign runs: where its reports go and what limits it.
public struct RunOptions: Sendable {
    /// The directory the run's report directory is created in (`--out`).
    public var outputRoot: String
    /// The most bench time the run may take: virtual time on the virtual farm. Past it the run is stopped.
    public var horizon: Duration
    /// The most wall-clock time the run may take (`--timeout`); nil for no limit.
    public var timeout: Duration?
    /// Leases each board before the run touches it; nil leases nothing (a run that owns its bench).
    public var leasing: (any BoardLeasing)?
    /// Judges the run before its final reports are written (the release gates); nil judges nothing.
    public var judge: (any RunJudge)?
    /// Where the run comes from, recorded on its `runStarted` event (and so in history).
    public var provenance: RunProvenance
    /// Called once with the folded result when the run is over, before its final reports are rendered: work
    /// that needs the result but not the reports (storing it in history) starts here and runs beside them.
    public var resultReady: (@Sendable (RunResult) -> Void)?

    public init(
        outputRoot: String = "reports", horizon: Duration = Campaign.horizon, timeout: Duration? = nil,
        leasing: (any BoardLeasing)? = nil, judge: (any RunJudge)? = nil, provenance: RunProvenance = RunProvenance(),
        resultReady: (@Sendable (RunResult) -> Void)? = nil
    ) {
        self.outputRoot = outputRoot
        self.horizon = horizon
        self.timeout = timeout
        self.leasing = leasing
        self.judge = judge
        self.provenance = provenance
        self.resultReady = resultReady
    }
}

/// Where a run comes from: the host, and which rig file exactly. History keys runs from several hosts on it.
public struct RunProvenance: Sendable, Hashable {
    /// The host id; nil for the host's name.
    public var host: String?
    /// The rig file's SHA-256, lowercase hex.
    public var rigSHA256: String?
    /// The git revision of the repository the rig file is in.
    public var rigRevision: String?

    public init(host: String? = nil, rigSHA256: String? = nil, rigRevision: String? = nil) {
        self.host = host
        self.rigSHA256 = rigSHA256
        self.rigRevision = rigRevision
    }
}

/// What a finished campaign produced.
public struct CampaignResult: Sendable {
    public let runID: String
    /// Where the reports were written.
    public let directory: String
    /// The run, folded (each board's timeline bounded; run.jsonl has everything).
    public let result: RunResult
    public let summary: String
    /// How the run ended.
    public let status: ExitStatus
    /// Why the run stopped early, if it did.
    public let interruption: RunControl.Reason?
    /// Report files that could not be written, the bench failing: one line each.
    public let problems: [String]
    /// Where the reports went that the run directory could not take (a full disk); nil when it took them all.
    public let rescue: String?
    /// What each radio did.
    public let radios: [RadioReport]
    public let wallTime: Duration
    /// Bench time the run covered: virtual time on the virtual farm.
    public let benchTime: Duration
    /// The bench's own count of work (simulation timers on the virtual farm), if it counts.
    public let work: Int?
    /// Run events recorded.
    public let events: Int
    /// The gates' verdicts (``RunOptions/judge``); empty when the run was not judged.
    public var gates: [GateVerdict] = []

    /// True when no check failed or erred and the run was not stopped.
    public var passed: Bool { status == .passed }

    /// The files a finished run leaves in its directory, in the order the last line of `blerig run` names them.
    public static let reportNames = [
        "junit.xml", "summary.md", "report.html", "metrics.prom", "run.jsonl", "summary.txt", "captures/", "console/",
    ]

    /// The last line of `blerig run`: where the reports are, naming only those that are there. When the run
    /// directory could not take them all (a full disk), what it holds, then what went to ``rescue``.
    public var reportsLine: String {
        /// Whether `path` is a directory; nil when there is nothing there.
        func isDirectory(_ path: String) -> Bool? {
            var directory: ObjCBool = false
            return FileManager.default.fileExists(atPath: path, isDirectory: &directory) ? directory.boolValue : nil
        }
        func list(_ names: [String]) -> String { names.isEmpty ? "nothing" : names.joined(separator: ", ") }
        // A name ending in "/" is a directory.
        let here = list(Self.reportNames.filter { isDirectory(directory + "/" + $0) == $0.hasSuffix("/") })
        let time = String(format: "%.3f s of bench time in %.3f s", benchTime.seconds, wallTime.seconds)
        guard let rescue else { return "reports: \(directory)/ (\(here)); \(time)" }
        let rescued = ((try? FileManager.default.contentsOfDirectory(atPath: rescue)) ?? []).sorted().map { name in
            isDirectory(rescue + "/" + name) == true ? name + "/" : name
        }
        return "reports: \(directory)/ holds \(here); the rest is in \(rescue)/ (\(list(rescued))); \(time)"
    }
}

extension Campaign {
    /// How a run ends: stopped on purpose (130) or by the bench (3) as the reason says; with reports that could
    /// not be written, or any check left with an infrastructure failure, 3 (its numbers are not the boards');
    /// with a check that failed or erred otherwise, 1; with every check passing but a gate breached, 4.
    static func status(
        of result: RunResult, reason: RunControl.Reason?, problems: [String], gatesBreached: Bool = false
    ) -> ExitStatus {
        if let reason { return reason.exitStatus }
        if !problems.isEmpty { return .infrastructure }
        if result.nonPasses.contains(where: { $0.failureClass == .infrastructure }) { return .infrastructure }
        if result.counts.failed + result.counts.errors > 0 { return .checksFailed }
        if gatesBreached { return .gateBreached }
        return .passed
    }
}

extension RunResult {
    /// Every check whose last attempt did not pass or skip, with its class, for the run's ``RunEvent/runFinished(_:)``.
    var nonPasses: [RunEvent.NonPass] {
        boards.flatMap(\.tests).compactMap { test in
            let (status, message): (String, String)
            switch test.outcome {
            case .passed, .skipped: return nil
            case .failed(let text, _): (status, message) = ("failed", text)
            case .error(let text, _): (status, message) = ("error", text)
            case .interrupted(let reason): (status, message) = ("interrupted", reason)
            }
            return RunEvent.NonPass(
                board: test.board, suite: test.suite, test: test.name, status: status, failureClass: test.failureClass,
                message: message)
        }
    }

    /// The latest rig instant the run recorded: a board finishing, or a check ending.
    var lastInstant: RigInstant {
        let ends = boards.flatMap { board in
            board.tests.map { $0.started.advanced(by: $0.duration) }
                + [board.finished, board.started].compactMap { $0 }
        }
        return ends.max() ?? .origin
    }
}

extension Campaign {
    /// On a wall-clock bench whose `sync` suite names no `ingest_url`, starts the local ingest server (on the
    /// virtual farm the suite simulates its ingest).
    func startLocalIngestIfNeeded() async throws -> (any LocalIngest)? {
        guard !rig.isVirtual,
            suites.contains(where: { ($0.suite as? SyncSuite).map { $0.ingestURL == nil } ?? false })
        else { return nil }
        return try await startLocalIngest()
    }
}
