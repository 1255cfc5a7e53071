import BLECore
import BenchCore
import CentralStack
import Reports
import Synchronization
import Testing
import VirtualFarm

@testable import Benches
@testable import Orchestrator

/// The `sync` suite on a virtual esp-point with a small ring: it passes with the real central, and fails when a
/// faulty central loses or duplicates readings (an uploader double that lies about what it delivered).
@Suite("sync suite")
struct SyncSuiteTests {
    static let yaml = """
        rig: sync-test
        radio: virtual
        boards:
          - id: esp-sync
            profile: esp-point
            virtual: {firmware: {log_capacity: 12}}
        suites: [sync]
        """

    /// Runs `suite` on the board of ``yaml`` in a fresh simulation; returns its finished checks.
    static func run(_ suite: SyncSuite) async throws -> [RunEvent.TestFinished] {
        let config = try RigTesting.load(yaml).boards[0]
        let events = Mutex<[RunEvent.TestFinished]>([])
        try await Simulation.run(seed: 5) { sim in
            let farm = Farm(sim: sim, link: LinkParameters(connectionInterval: .milliseconds(15)))
            let board = farm.addBoard(id: config.id, profile: config.profile, settings: config.virtual.farmSettings)
            board.powerOn()
            try await sim.clock.sleep(for: .seconds(3))
            let recorder = CheckRecorder(
                board: config.id, clock: sim.clock, control: RunControl(),
                emit: { event in
                    if case let .testFinished(finished) = event { events.withLock { $0.append(finished) } }
                })
            var target = BoardUnderTest(
                config: config, address: board.address, match: BoardMatch(address: board.address),
                bench: BenchBoard(id: config.id, match: BoardMatch(address: board.address)), central: farm.central(),
                clock: sim.clock, recorder: recorder, keys: InMemoryKeyStore(), seed: 5, gattCache: InMemoryGATTCache(),
                consoleLog: ConsoleMonitor())
            target.checkTimeout = suite.defaultCheckTimeout
            await suite.run(on: target)
        }
        return events.withLock { $0 }
    }

    static func value(_ metric: String, in checks: [RunEvent.TestFinished]) -> Double? {
        checks.flatMap(\.measurements).last { $0.metric == metric && $0.statistic == .value }?.value
    }

    /// A day offline, a day away (24 hourly readings into a ring of 12), a 5-minute outage, 5 % failing requests, 2 refused readings.
    static func suite(wrap: (@Sendable (any Uploader) -> any Uploader)? = nil) -> SyncSuite {
        SyncSuite(
            offline: .seconds(86_400), away: .seconds(86_400), pullEvery: .seconds(6 * 3600), refusedReadings: 2,
            failureRate: 0.05, outage: .seconds(300), wrapUploader: wrap)
    }

    @Test("passes on a virtual esp-point: nothing lost or duplicated, dead letters and ring overflow reported")
    func passes() async throws {
        let checks = try await Self.run(Self.suite())
        #expect(checks.map(\.test) == SyncSuite.checkNames)
        for check in checks { #expect(check.outcome == .passed, "\(check.test): \(check.outcome)") }
        #expect(Self.value("sync.readings_lost", in: checks) == 0)
        #expect(Self.value("sync.duplicates", in: checks) == 0)
        #expect(Self.value("sync.dead_lettered", in: checks) == 2)
        // 24 readings into a ring of 12: 12 (± one sample at the edges) overwritten, and reported.
        let dropped = try #require(Self.value("sync.ring_dropped", in: checks))
        #expect((11...13).contains(dropped))
        let latencyMax = checks.flatMap(\.measurements).first { $0.metric == "sync.latency_s" && $0.statistic == .max }
        // The first readings are queued at the first 6-hourly pull and wait out the rest of the offline day.
        #expect((latencyMax?.value ?? 0) >= 86_400 - 6 * 3600 - 3600)
    }

    @Test("an ingest_url that is not an http(s) URL is refused at its line and column; a good one is taken")
    func ingestURLOption() throws {
        let bad = try RigTesting.load(
            Self.yaml.replacingOccurrences(of: "suites: [sync]", with: "suites:\n  - sync: {ingest_url: \"ftp://x\"}"))
        do {
            _ = try SuiteCatalog.plan(bad.suites, file: "rig.yaml")
            Issue.record("ftp://x was accepted")
        } catch {
            #expect(error.issues.map(\.location.description) == ["rig.yaml:8:24"])
            #expect(error.issues.first?.message.contains("http://") == true)
        }
        let good = try RigTesting.load(
            Self.yaml.replacingOccurrences(
                of: "suites: [sync]", with: "suites:\n  - sync: {ingest_url: \"http://10.0.0.2:8080/\"}"))
        let planned = try SuiteCatalog.plan(good.suites, file: "rig.yaml")
        #expect((planned.first?.suite as? SyncSuite)?.ingestURL?.absoluteString == "http://10.0.0.2:8080/")
    }

    @Test("fails when the central loses readings: an uploader that confirms a batch it never delivered")
    func failsOnLoss() async throws {
        let checks = try await Self.run(Self.suite(wrap: { LosingUploader(wrapping: $0) }))
        let last = try #require(checks.last)
        #expect(last.test == "no reading lost or duplicated by the central")
        guard case let .failed(message, _) = last.outcome else {
            Issue.record("expected a failure, got \(last.outcome)")
            return
        }
        #expect(message.contains("lost"))
        #expect((Self.value("sync.readings_lost", in: checks) ?? 0) > 0)
    }

    @Test("fails when the central duplicates: an uploader that sends every batch twice")
    func failsOnDuplicates() async throws {
        let checks = try await Self.run(Self.suite(wrap: { DuplicatingUploader(wrapping: $0) }))
        let last = try #require(checks.last)
        guard case .failed = last.outcome else {
            Issue.record("expected a failure, got \(last.outcome)")
            return
        }
        #expect((Self.value("sync.duplicates", in: checks) ?? 0) > 0)
    }
}

extension SyncSuiteTests {
    @Test("fails when the central acknowledges the board's log before committing the readings")
    func failsOnEarlyAcknowledgement() async throws {
        var suite = Self.suite()
        suite.puller = { client, queue, board, now, observe in
            // The faulty order: READ, ACK, then commit.
            let status = try await client.logStatus()
            var report = PullReport(statusBefore: status)
            guard status.count > 0 else { return report }
            let readings = try await client.readLog(from: status.oldest, maxCount: 256)
            guard let last = readings.last else { return report }
            try await client.acknowledgeLog(upTo: last.sequence)
            observe(.acknowledged(upTo: last.sequence))
            report.read = readings.count
            report.queued = try queue.enqueue(
                board: board, records: readings.map { ($0.sequence, $0.encoded) }, at: now())
            observe(.committed(sequences: readings.map(\.sequence)))
            return report
        }
        let checks = try await Self.run(suite)
        let last = try #require(checks.last)
        guard case let .failed(message, _) = last.outcome else {
            Issue.record("expected a failure, got \(last.outcome)")
            return
        }
        #expect(message.contains("before committing") && !message.contains("acknowledged 0 reading"))
        #expect(Self.value("sync.readings_lost", in: checks) == 0, "nothing crashed, so nothing was lost this time")
    }
}

/// A faulty central's uploader: confirms every third batch without sending it.
final class LosingUploader: Uploader {
    let inner: any Uploader
    let count = Mutex(0)
    init(wrapping inner: any Uploader) { self.inner = inner }

    func upload(_ batch: IngestBatch) async throws(UploadError) -> UploadReceipt {
        let n = count.withLock { count in
            count += 1
            return count
        }
        if n % 3 == 0 { return UploadReceipt(accepted: batch.readings.map(\.key)) }
        return try await inner.upload(batch)
    }
}

/// A faulty central's uploader: sends every batch twice.
final class DuplicatingUploader: Uploader {
    let inner: any Uploader
    init(wrapping inner: any Uploader) { self.inner = inner }

    func upload(_ batch: IngestBatch) async throws(UploadError) -> UploadReceipt {
        _ = try? await inner.upload(batch)
        return try await inner.upload(batch)
    }
}
