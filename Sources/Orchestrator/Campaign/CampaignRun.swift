import BLECore
import BenchCore
import CentralStack
import Foundation
import Reports
import Synchronization

/// A campaign on an open bench: every board brought up, scheduled onto a radio and tested in parallel, on the
/// bench's clock, until the boards are done or the run is stopped. Runs inside the launcher's body (inside the
/// simulation, on the virtual farm).
struct CampaignRun: Sendable {
    let campaign: Campaign
    let files: RunFiles
    let control: RunControl
    let horizon: Duration
    /// The local ingest server the `sync` suite uploads to on a wall-clock bench.
    var syncIngestURL: URL?
    /// Boards the run could not lease, with why: they are not touched.
    var unleased: [String: String] = [:]

    var rig: RigConfig { campaign.rig }
    var emit: @Sendable (RunEvent) -> Void {
        let recorder = files.recorder
        return { recorder.emit($0) }
    }

    /// Runs every board; returns the bench clock when the last one is done, and what each radio counted.
    func run(on bench: any Bench) async -> (end: RigInstant, radios: [RadioReport]) {
        let clock = bench.clock
        files.captures.start(unixTimeAtOrigin: bench.unixTimeAtOrigin)
        for radio in bench.radios { radio.capture(into: files.captures) }
        let scheduler = LinkScheduler(limits: bench.radios.map(\.maxLinks))
        let keys = InMemoryKeyStore()
        let gattCache = InMemoryGATTCache()
        let control = control
        let horizon = horizon
        await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await withTaskGroup(of: Void.self) { boards in
                    for board in bench.boards {
                        boards.addTask {
                            await runBoard(
                                board, bench: bench, scheduler: scheduler, keys: keys, gattCache: gattCache)
                        }
                    }
                }
                return true
            }
            group.addTask {
                _ = await control.interrupted()
                return false
            }
            // A part the whole bench depends on failing stops the run at once: its checks in flight end as
            // infrastructure errors (CheckRecorder races them against the same health), and it exits 3.
            group.addTask {
                guard let fault = await bench.health.nextFault(affecting: nil) else { return false }
                control.interrupt(.infrastructure("\(fault)"))
                return false
            }
            group.addTask {
                do { try await clock.sleep(until: RigInstant(sinceOrigin: horizon), tolerance: nil) } catch {
                    return false
                }
                control.interrupt(.horizon(horizon))
                return false
            }
            // The boards finishing ends the watchers; the run being stopped cancels the boards, whose checks in
            // flight then end as interrupted and whose remaining checks are recorded as skipped.
            for await boardsDone in group where boardsDone || control.reason != nil {
                group.cancelAll()
            }
        }
        let radios = bench.radios.map {
            RadioReport(id: $0.id, kind: $0.kind, maxLinks: $0.maxLinks, counters: $0.counters)
        }
        return (clock.now, radios)
    }

    /// One board: bring it up, wait for a link, run the suites, leave it as the rig says.
    private func runBoard(
        _ board: BenchBoard, bench: any Bench, scheduler: LinkScheduler, keys: any PairingKeyStore,
        gattCache: any GATTCache
    ) async {
        guard let config = rig.board(id: board.id) else { return }
        if let reason = unleased[board.id] {
            return recordUnleased(board, config: config, reason: reason, at: bench.clock.now)
        }
        let clock = bench.clock
        let recorder = CheckRecorder(
            board: board.id, clock: clock, control: control, health: bench.health, emit: emit)
        let monitor = ConsoleMonitor(profile: config.profile)
        if let console = board.console {
            let (consoles, emit, id) = (files.consoles, emit, board.id)
            console.attach { entry in
                monitor.take(entry)
                do { try consoles.append(entry, board: id) } catch {
                    control.interrupt(.infrastructure("\(error)"))
                }
                emit(
                    .log(.init(board: id, at: entry.at, level: monitor.level(of: entry), source: "console", message: entry.text)))
            }
        }
        let allowed = config.radio.flatMap { id in bench.radios.firstIndex { $0.id == id } }.map { [$0] } ?? []
        var identity = board.identity.map { IdentityField(key: $0.key, value: $0.value) }
        identity.append(IdentityField(key: "defined_at", value: "\(config.location)"))
        if let pinned = allowed.first { identity.append(IdentityField(key: "radio", value: bench.radios[pinned].id)) }
        emit(.boardStarted(.init(board: board.id, profile: config.profile.rawValue, identity: identity, at: clock.now)))

        let strategy = BoardStrategy(
            board: board, place: "\(config.location)", recorder: recorder, console: monitor, clock: clock,
            reachTimeout: Campaign.reachTimeout)
        let seen = Box<Advertisement>()
        let scanner = bench.radios[allowed.first ?? 0].central
        let reached = await recorder.check("preflight", "reachable", timeout: Campaign.reachTimeout * 4) {
            let (report, poweredAt) = try await strategy.bringUp(scanningWith: scanner)
            seen.value = report
            return [
                MeasuredValue(
                    metric: "board.first_advertisement_s", statistic: .value,
                    value: poweredAt.duration(to: report.received).seconds, unit: .seconds,
                    definition: "power on (or reset) → first advertising report")
            ]
        }
        var measurements: [MeasuredValue] = []
        if reached == .passed, let report = seen.value {
            files.captures.register(report.address, as: board.id)
            recorder.log(
                .info, "orchestrator",
                "seen at \(report.address) as '\(report.data.localName ?? "")', RSSI \(report.rssi) dBm")
            measurements = await runSuites(
                on: board, config: config, address: report.address, allowed: allowed, bench: bench,
                scheduler: scheduler, recorder: recorder, keys: keys, gattCache: gattCache, console: monitor,
                strategy: strategy)
        } else {
            let why = reached == .passed ? "it was not seen" : "it could not be brought up"
            if control.reason == nil {
                recorder.move(to: .quarantined, reason: "preflight failed: \(why)")
            }
            for planned in campaign.suites(for: board.id) {
                recorder.skipAll(
                    planned, profile: config.profile,
                    reason: control.reason.map { "not run: the run was stopped (\($0))" }
                        ?? "board \(board.id) is quarantined: preflight failed")
            }
        }
        await strategy.finish(rig.afterRun)
        emit(
            .boardFinished(
                .init(board: board.id, at: clock.now, state: recorder.state.rawValue, measurements: measurements)))
    }

    /// Waits for a link, runs the suites with it, gives it back; returns the board-level numbers.
    private func runSuites(
        on board: BenchBoard, config: BoardConfig, address: DeviceAddress, allowed: [Int], bench: any Bench,
        scheduler: LinkScheduler, recorder: CheckRecorder, keys: any PairingKeyStore, gattCache: any GATTCache,
        console: ConsoleMonitor, strategy: BoardStrategy
    ) async -> [MeasuredValue] {
        let clock = bench.clock
        let asked = clock.now
        let full = scheduler.inUse.enumerated().allSatisfy { radio, used in
            !(allowed.isEmpty || allowed.contains(radio)) || used >= scheduler.limits[radio]
        }
        if full { recorder.move(to: .queued, reason: "every radio it may use holds its maximum of links") }
        guard let lease = await scheduler.acquire(allowed: allowed) else {
            for planned in campaign.suites(for: board.id) {
                recorder.skipAll(
                    planned, profile: config.profile,
                    reason: "not run: the run was stopped (\(control.reason?.description ?? "cancelled"))")
            }
            return []
        }
        let waited = asked.duration(to: clock.now)
        let radio = bench.radios[lease.radio]
        if full { recorder.move(to: .advertising, reason: "a link on radio \(radio.id) is free") }
        recorder.log(
            .info, "orchestrator", "holds a link on radio \(radio.id) (\(radio.kind)) after waiting \(waited.msText)")
        var target = BoardUnderTest(
            config: config, address: address, match: board.match, bench: board, central: radio.central,
            clock: clock, recorder: recorder, keys: keys, seed: campaign.seed, gattCache: gattCache,
            consoleLog: console)
        target.unixTimeAtOrigin = bench.unixTimeAtOrigin
        if radio.kind == "virtual", let link = rig.virtual?.link {
            target.unacknowledgedCapacity =
                Double(link.packetsPerEvent * (link.dataLength - 7)) / (link.intervalMs / 1000)
        }
        // On blerig's HCI host the suites run on the thread that reads the controller: a response resumes the
        // waiting procedure there, with no thread hop (``BenchRadio/executor``); blocking work hops away meanwhile.
        await withTaskExecutorPreference(radio.executor) {
            await BlockingWork.$offload.withValue(radio.executor != nil) {
                await runPlanned(
                    on: board, config: config, target: target, radio: radio, strategy: strategy, recorder: recorder,
                    health: bench.health)
            }
        }
        scheduler.release(lease)
        return [
            MeasuredValue(
                metric: "schedule.link_wait_ms", statistic: .value, value: waited.milliseconds, unit: .milliseconds,
                definition: "preflight passed → a radio link granted (waiting while every radio the board may use "
                    + "held its maximum of links)")
        ]
    }

    /// Runs the board's suites in order on its link; a suite whose retries end in quarantine skips the rest.
    private func runPlanned(
        on board: BenchBoard, config: BoardConfig, target: BoardUnderTest, radio: any BenchRadio,
        strategy: BoardStrategy, recorder: CheckRecorder, health: BenchHealth
    ) async {
        var target = target
        var remaining = campaign.suites(for: board.id)[...]
        while let planned = remaining.popFirst() {
            if Task.isCancelled {
                let reason = "not run: the run was stopped (\(control.reason?.description ?? "cancelled"))"
                for suite in [planned] + remaining { recorder.skipAll(suite, profile: config.profile, reason: reason) }
                break
            }
            target.syncIngestURL = syncIngestURL
            target.checkTimeout = planned.checkTimeout
            await planned.suite.run(on: target)
            if let quarantine = await retry(planned, on: target, strategy: strategy, central: radio.central, health: health) {
                recorder.move(to: .quarantined, reason: quarantine)
                for suite in remaining {
                    recorder.skipAll(
                        suite, profile: config.profile, reason: "not run: board \(board.id) is quarantined: \(quarantine)")
                }
                break
            }
        }
    }
}

/// What one radio of the bench did, for the summary.
public struct RadioReport: Sendable, Hashable {
    public var id: String
    public var kind: String
    public var maxLinks: Int
    public var counters: [RadioCounter]

    /// `r1: virtual radio, at most 8 links; radio.events 1234, radio.events_skipped 3, ...`
    public var line: String {
        "\(id): \(kind) radio, at most \(maxLinks) links"
            + (counters.isEmpty
                ? "" : "; " + counters.map { "\($0.metric) \(Self.number($0.value))" }.joined(separator: ", "))
    }
}

extension RadioReport {
    fileprivate static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(format: "%.3f", value)
    }
}

extension ConsoleEntry {
    /// The severity the board gave the line (`[10234] W/LOG: ...` is a warning); info for lines without one.
    var level: LogLevel {
        guard case let .log(_, level, _, _) = line else { return .info }
        switch level {
        case "E": return .error
        case "W": return .warning
        case "D", "V": return .debug
        default: return .info
        }
    }
}

/// A value handed out of a `@Sendable` closure.
final class Box<Value: Sendable>: Sendable {
    private let storage = Mutex<Value?>(nil)
    var value: Value? {
        get { storage.withLock { $0 } }
        set { storage.withLock { $0 = newValue } }
    }
}
