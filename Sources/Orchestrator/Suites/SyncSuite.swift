import BLECore
import CentralStack
import DeviceProfiles
import Foundation
import Reports

/// `sync`: the case study's sync queue on an esp-point, over days of bench time. The central pulls the board's
/// flash log (STATUS / READ / ACK, acknowledging only what is durably queued) into a ``SyncQueue`` and a
/// ``SyncWorker`` uploads it to an ingest in batches of 50. Every pull is work asked of the app's central
/// (``AppCentral/pullLog(into:serial:now:puller:observe:prepare:)``), which connects on demand; the first pull sets
/// the board's clock, so `sync.latency_s` runs from each reading's own sample time:
///
/// 1. the phone is offline (reachability) for `offline_days` while the central keeps pulling: nothing may be
///    attempted, everything must be queued;
/// 2. back online, the backlog goes up through an injected ingest outage and failing requests;
/// 3. readings the ingest refuses are dead-lettered after 5 attempts and reported, never dropped;
/// 4. the phone stays away from the board for `away_days`: when the ring is too small the board overwrites
///    records, and the loss must be visible (its `dropped` counter equals the gap the central sees);
/// 5. the accounting: every reading in the board's seq range is at the ingest, a dead letter, still queued, or
///    counted as lost by the ring — `sync.readings_lost` (the central's loss) and `sync.duplicates` must be 0.
///
/// The worker's policy dead-letters a reading after 5 failed attempts, about half an hour of backoff: the default
/// outage (5 min) and failure rate (5 %) are ridden out; an outage of an hour dead-letters what it meets, by design.
///
/// On the virtual farm the ingest is ``SimulatedIngest`` (faults injected, on the virtual clock); elsewhere it is
/// the HTTP ingest of `ingest_url` or the rig's local server, and the injected faults are skipped.
struct SyncSuite: Suite {
    static let name = "sync"
    var offline: Duration = .seconds(3 * 86_400)
    var away: Duration = .seconds(3 * 86_400)
    var pullEvery: Duration = .seconds(6 * 3600)
    var sampleInterval: UInt32 = 3600
    var refusedReadings = 2
    var failureRate = 0.05
    var outage: Duration = .seconds(5 * 60)
    /// The HTTP ingest to upload to; nil: the simulated one on the virtual farm, the rig's local one elsewhere.
    var ingestURL: URL?
    /// Tests only: wraps the uploader (a faulty central, to show the checks fail).
    var wrapUploader: (@Sendable (any Uploader) -> any Uploader)?
    /// Tests only: replaces ``LogPuller/pull(client:queue:board:now:observe:)`` (a central that acknowledges too
    /// early, to show the check fails).
    var puller: Puller = LogPuller.pull

    typealias Puller = AppCentral.Puller

    /// The checks, in the order they run.
    enum Check: String, SuiteChecks {
        case offline = "offline: readings queued, no upload attempted"
        case online = "online: backlog uploaded through outage and failures"
        case deadLetters = "refused readings dead-lettered and kept"
        case ringOverflow = "ring overflow visible"
        case accounting = "no reading lost or duplicated by the central"
    }

    static var checkNames: [String] { Check.names }

    init(options: inout RigMappingReader) {
        func days(_ key: String) -> Duration? {
            options.number(key, in: 0...30, unit: "days").map { .milliseconds(Int64(($0 * 86_400_000).rounded())) }
        }
        if let value = days("offline_days") { offline = value }
        if let value = days("away_days") { away = value }
        if let hours = options.number("pull_interval_h", in: 0.0005...48, unit: "h") {
            pullEvery = .milliseconds(Int64((hours * 3_600_000).rounded()))
        }
        if let seconds = options.integer("sample_interval_s", in: UInt32(1)...86_400) { sampleInterval = seconds }
        if let count = options.integer("refused_readings", in: 0...50) { refusedReadings = count }
        if let rate = options.number("failure_rate", in: 0...0.9) { failureRate = rate }
        if let minutes = options.number("outage_min", in: 0...1440, unit: "min") {
            outage = .milliseconds(Int64((minutes * 60_000).rounded()))
        }
        if let text = options.string("ingest_url") {
            if let url = URL(string: text), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host != nil
            {
                ingestURL = url
            } else if let node = options.value("ingest_url") {
                options.diagnostics.record(
                    .wrongType, "'ingest_url' must be an http:// or https:// URL with a host, found '\(text)'",
                    at: node.location)
            }
        }
    }

    init(
        offline: Duration, away: Duration, pullEvery: Duration, refusedReadings: Int = 2, failureRate: Double = 0.05,
        outage: Duration = .seconds(300), wrapUploader: (@Sendable (any Uploader) -> any Uploader)? = nil
    ) {
        self.offline = offline
        self.away = away
        self.pullEvery = pullEvery
        self.refusedReadings = refusedReadings
        self.failureRate = failureRate
        self.outage = outage
        self.wrapUploader = wrapUploader
    }

    /// The offline and away periods, plus a day for uploads, retries and the handshakes.
    var defaultCheckTimeout: Duration { offline + away + .seconds(86_400) }

    func checkNames(for profile: Profile) -> [String] { Self.checkNames }

    func run(on board: BoardUnderTest) async {
        guard board.profile == .espPoint else { return }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "blerig-sync-\(board.id)-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let queue: SyncQueue
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            queue = try SyncQueue(path: directory.appendingPathComponent("queue.sqlite").path)
        } catch {
            return await board.failFirst(
                Self.name, Check.self, message: "\(board.place): \(error)", skipping: "no sync queue: \(error)")
        }
        let ingestURL = ingestURL ?? board.syncIngestURL
        let simulated = ingestURL == nil ? SimulatedIngest(clock: board.clock) : nil
        let ingest: any Uploader = simulated ?? HTTPUploader(base: ingestURL!)
        do {
            try await board.withAppCentral(purpose: "sync") { app in
                let run = SyncRun(
                    suite: self, board: board, app: app, queue: queue, ingest: ingest, simulated: simulated,
                    uploader: wrapUploader?(ingest) ?? ingest)
                await run.perform()
            }
        } catch {
            board.recorder.log(.warning, "central", "the app central ended with: \(error)")
        }
    }
}
