import BLECore
import CentralStack
import DeviceProfiles
import Foundation
import Reports
import Synchronization
import VirtualFarm

/// One run of a rig's suites over its boards: load the rig file, bring up the farm, run every board's suites in
/// parallel, and write `<out>/<run-id>/` (JUnit, the run log, the summary, captures and console logs).
public struct Campaign: Sendable {
    public let rig: RigConfig
    let suites: [any Suite]
    public let seed: UInt64

    /// The suites blerig has, in the order they run when a rig lists them all.
    public static var suiteNames: [String] { SuiteCatalog.names }

    /// How long a board may take to show up on the air before it is reported unreachable.
    public static let reachTimeout: Duration = .seconds(10)

    /// Loads and checks the rig file. `seed` overrides the rig's seed; `suites` narrows the rig's suites to those
    /// named, in the rig's order.
    public init(rigFile path: String, seed: UInt64? = nil, suites names: [String]? = nil) throws(CampaignError) {
        do {
            rig = try RigFile.load(contentsOf: path, knownSuites: Self.suiteNames)
        } catch { throw .rig(error) }
        guard rig.radio.isVirtual else { throw .unsupportedRadio(rig.radio) }
        var selections = rig.suites
        if let names {
            if let unknown = names.first(where: { !Self.suiteNames.contains($0) }) {
                throw .argument(
                    flag: "--suites",
                    message:
                        "unknown suite '\(unknown)' (blerig has \(RigWording.list(Self.suiteNames, conjunction: "and")))"
                )
            }
            selections = selections.filter { names.contains($0.name) }
            guard !selections.isEmpty else {
                throw .argument(
                    flag: "--suites",
                    message:
                        "none of \(names.joined(separator: ",")) is selected in \(path) (it selects \(rig.suites.map(\.name).joined(separator: ",")))"
                )
            }
        }
        do { suites = try SuiteCatalog.plan(selections, file: path) } catch { throw .rig(error) }
        self.seed = seed ?? rig.virtual?.seed ?? VirtualFarmConfig.defaultSeed
    }

    /// Runs the campaign and writes its reports under `outputRoot/<run-id>/`; `horizon` bounds the virtual time. `progress` gets one line per event
    /// worth showing (a board's state, a finished check).
    public func run(
        outputRoot: String = "reports", horizon: Duration = Campaign.horizon,
        progress: @escaping @Sendable (String) -> Void = { _ in }
    ) async throws(CampaignError) -> CampaignResult {
        let wallStart = Date()
        let wallClock = ContinuousClock()
        let started = wallClock.now
        let runID = Self.runID(rig: rig.name, seed: seed, at: wallStart)
        let log = RunLog()
        let emit: @Sendable (RunEvent) -> Void = { event in
            log.append(event)
            if let line = ProgressLine(event) { progress(line.text) }
        }
        emit(
            .runStarted(
                .init(
                    runID: runID, rig: rig.name, rigFile: rig.location.file, seed: seed, radio: rig.radio.kindName,
                    wallStart: wallStart, host: ProcessInfo.processInfo.hostName)))

        let captures = CaptureStore(unixTimeAtOrigin: .seconds(Self.virtualEpoch))
        let consoles = ConsoleStore()
        let outcome: (end: RigInstant, work: Int)
        // A simulation that fails still leaves its checks, captures and console lines: they are written below
        // before the failure is reported.
        var simulationFailure: String?
        do {
            outcome = try await Simulation.run(seed: seed, horizon: horizon) { [self] sim in
                try await runFarm(sim: sim, emit: emit, captures: captures, consoles: consoles)
                return (sim.now, sim.work.timers)
            }
        } catch {
            simulationFailure = "\(error)"
            outcome = (RunResult(log).lastInstant, 0)
        }

        let directory = URL(fileURLWithPath: outputRoot).appendingPathComponent(runID)
        var files: [(relative: String, bytes: [UInt8])] = []
        for board in rig.boards {
            let capture = "captures/\(board.id).btsnoop"
            files.append((capture, captures.bytes(for: board.id)))
            emit(.attachment(.init(board: board.id, kind: .btsnoop, path: capture, at: outcome.end)))
            let console = "console/\(board.id).log"
            files.append((console, Array(consoles.text(for: board.id).utf8)))
            emit(.attachment(.init(board: board.id, kind: .console, path: console, at: outcome.end)))
        }
        let wallTime = started.duration(to: wallClock.now)
        emit(.runFinished(.init(at: outcome.end, wallDuration: wallTime)))
        let result = RunResult(log)
        let summary = result.summaryTable(keyStatistics: [.p50, .value], metrics: Self.summaryMetrics)
        files.append(("junit.xml", Array(JUnitWriter().render(result).utf8)))
        do { files.append(("run.jsonl", Array(try log.jsonLines().utf8))) } catch {
            throw .output(path: directory.appendingPathComponent("run.jsonl").path, message: "\(error)")
        }
        files.append(("summary.txt", Array(summary.utf8)))
        try Self.write(files, into: directory)
        if let simulationFailure {
            throw .simulation("\(simulationFailure); what was recorded until then is in \(directory.path)")
        }
        return CampaignResult(
            runID: runID, directory: directory.path, result: result, log: log, summary: summary, wallTime: wallTime,
            virtualTime: outcome.end.sinceOrigin, timersFired: outcome.work)
    }

    /// The most virtual time a campaign may simulate.
    public static let horizon: Duration = .seconds(400 * 24 * 3600)

    /// The numbers the summary table shows per board; the JUnit file has them all.
    static let summaryMetrics = [
        "handshake.connect_ms", "handshake.ready_ms", "gatt.write_rtt_ms", "notify.rate_hz", "notify.gaps",
    ]

    /// The Unix time the virtual farm's clock origin is placed at in captures: 2026-01-01 00:00 UTC, fixed so
    /// that captures of the same seed are byte-identical.
    static let virtualEpoch: Int64 = 1_767_225_600

    private func runFarm(
        sim: Simulation, emit: @escaping @Sendable (RunEvent) -> Void, captures: CaptureStore, consoles: ConsoleStore
    ) async throws {
        let virtual = rig.virtual ?? VirtualFarmConfig(at: rig.location)
        let farm = Farm(sim: sim, link: virtual.link.parameters, faults: virtual.faults.linkFaults)
        var boards: [(config: BoardConfig, board: VirtualBoard)] = []
        for config in rig.boards {
            let board = farm.addBoard(id: config.id, profile: config.profile, settings: config.virtual.farmSettings)
            let id = config.id
            board.consoleListener = { at, line in
                consoles.append(id, at: at, line: line.description)
                emit(.log(.init(board: id, at: at, level: .info, source: "console", message: line.description)))
            }
            boards.append((config, board))
            captures.register(board.address, as: config.id)
        }
        let central = farm.central { captures.record($0) }
        let keys = InMemoryKeyStore()
        let air = farm.air
        await withTaskGroup(of: Void.self) { group in
            for (config, board) in boards {
                let address = board.address
                let target = BoardUnderTest(
                    config: config, address: address, central: central,
                    recorder: CheckRecorder(board: config.id, clock: sim.clock, emit: emit), keys: keys, seed: seed,
                    predictConnect: { air.predictedConnectLatency(to: address, requestedAt: $0) })
                let identity = [
                    IdentityField(key: "address", value: "\(address)"),
                    IdentityField(key: "firmware", value: "\(board.firmwareVersion)"),
                    IdentityField(key: "radio", value: "virtual"),
                    IdentityField(key: "defined_at", value: "\(config.location)"),
                ]
                emit(
                    .boardStarted(
                        .init(board: config.id, profile: config.profile.rawValue, identity: identity, at: sim.now)))
                target.recorder.transition(from: "off", to: "booting", reason: "power on")
                board.powerOn()
                group.addTask { [suites] in
                    await Self.runBoard(target, suites: suites)
                    emit(.boardFinished(.init(board: config.id, at: sim.now)))
                }
            }
        }
    }

    /// Waits for the board to appear on the air, then runs the suites in order; an unreachable board gets its
    /// suites reported as skipped, with the reason.
    static func runBoard(_ board: BoardUnderTest, suites: [any Suite]) async {
        let reached = await board.recorder.check("preflight", "reachable") {
            guard let report = try await board.firstAdvertisement(within: reachTimeout) else {
                throw CheckFailure(
                    "\(board.config.location): board \(board.id) is unreachable: no advertisement from \(board.address) within \(reachTimeout.seconds) s"
                )
            }
            return [
                MeasuredValue(
                    metric: "board.first_advertisement_s", statistic: .value,
                    value: report.received.sinceOrigin.seconds,
                    unit: .seconds, definition: "power on → first advertising report")
            ]
        }
        guard reached == .passed else {
            board.recorder.transition(from: "booting", to: "unreachable", reason: "no advertisement")
            for suite in suites {
                board.recorder.skip(type(of: suite).name, "all checks", reason: "board \(board.id) is unreachable")
            }
            return
        }
        board.recorder.transition(from: "booting", to: "ready", reason: "advertising")
        for suite in suites { await suite.run(on: board) }
        board.recorder.transition(from: "ready", to: "done", reason: "suites finished")
    }

    /// `virtual-farm-20261123T114502Z-s42`
    static func runID(rig: String, seed: UInt64, at date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        func two(_ n: Int?) -> String { n.map { $0 < 10 ? "0\($0)" : "\($0)" } ?? "00" }
        let stamp = "\(c.year ?? 0)\(two(c.month))\(two(c.day))T\(two(c.hour))\(two(c.minute))\(two(c.second))Z"
        return "\(rig)-\(stamp)-s\(seed)"
    }

    /// Writes every file under `directory`; the first failure is reported with its path.
    static func write(_ files: [(relative: String, bytes: [UInt8])], into directory: URL) throws(CampaignError) {
        for (relative, bytes) in files {
            let url = directory.appendingPathComponent(relative)
            do {
                try FileManager.default.createDirectory(
                    at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data(bytes).write(to: url, options: .atomic)
            } catch {
                throw .output(path: url.path, message: (error as NSError).localizedDescription)
            }
        }
    }
}

/// What a finished campaign produced.
public struct CampaignResult: Sendable {
    public let runID: String
    /// Where the reports were written.
    public let directory: String
    public let result: RunResult
    public let log: RunLog
    public let summary: String
    public let wallTime: Duration
    /// Virtual time the farm simulated.
    public let virtualTime: Duration
    /// Simulation timers fired: the farm's work, independent of the machine.
    public let timersFired: Int

    /// True when no check failed or erred.
    public var passed: Bool { result.counts.failed == 0 && result.counts.errors == 0 }
}

extension Campaign {
    /// Runs the campaign `runs` times, each into a scratch directory removed afterwards: what `blerig bench` times.
    public func bench(runs: Int) async throws(CampaignError) -> [CampaignResult] {
        let scratch = FileManager.default.temporaryDirectory
            .appendingPathComponent("blerig-bench-\(ProcessInfo.processInfo.processIdentifier)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        var results: [CampaignResult] = []
        for _ in 0..<max(1, runs) { results.append(try await run(outputRoot: scratch.path)) }
        return results
    }
}

extension RunResult {
    /// The latest rig instant the run recorded: a board finishing, or a check ending.
    var lastInstant: RigInstant {
        let ends = boards.flatMap { board in
            board.tests.map { $0.started.advanced(by: $0.duration) }
                + [board.finished, board.started].compactMap { $0 }
        }
        return ends.max() ?? .origin
    }
}
