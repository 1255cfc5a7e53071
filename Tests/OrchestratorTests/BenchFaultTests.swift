import BLECore
import BenchCore
import CentralStack
import Foundation
import Reports
import Synchronization
import Testing

@testable import Orchestrator

/// A part of the bench dying mid-run: noticed at once, the checks it affects end as infrastructure errors with
/// the cause, nothing measured while it was failing passes, and the run exits 3.
@Suite("Bench faults and failure classes")
struct BenchFaultTests {
    static let longRig = WallClockBenchTests.rig.replacingOccurrences(
        of: "suites: [discovery, {handshake: {connections: 2}}, {commands: {repetitions: 2}}]",
        with: "suites: [discovery, {handshake: {connections: 100000}}, {commands: {repetitions: 2}}]")

    @Test("a controller's transport closing mid-run ends the checks in flight as infrastructure errors at once; exit 3")
    func transportClosesMidRun() async throws {
        let launcher = WallClockBenchTests.FakeLauncher()
        let path = try RigTesting.temporaryFile(Array(Self.longRig.utf8))
        let campaign = try Campaign(rigFile: path, benches: launcher)
        let failedAt = Mutex<RigInstant?>(nil)
        let out = CampaignTests.outputRoot()
        let saboteur = Task {
            // Once the handshakes (hours of them) are under way, the controller's transport closes.
            let deadline = ContinuousClock.now + .seconds(600)
            while ContinuousClock.now < deadline {
                let log = (try? FileManager.default.contentsOfDirectory(atPath: out).first).flatMap {
                    try? String(contentsOfFile: "\(out)/\($0)/run.jsonl", encoding: .utf8)
                }
                // A handshake check started (the run's plan at the top names the suite too).
                let started = log?.split(separator: "\n").contains {
                    $0.contains("\"event\":\"testStarted\"") && $0.contains("\"suite\":\"handshake\"")
                }
                if started == true { break }
                try await Task.sleep(for: .milliseconds(20))
            }
            try await Task.sleep(for: .milliseconds(300))
            let clock = try #require(launcher.clock.withLock { $0 })
            let now = clock.now
            failedAt.withLock { $0 = now }
            launcher.health.report(
                BenchFault(part: "radio 'radio' (hci tcp:127.0.0.1:9)", cause: "the transport closed", at: now))
        }
        let result = try await campaign.run(RunOptions(outputRoot: out))
        try await saboteur.value
        let fault = try #require(failedAt.withLock { $0 })

        #expect(result.status == .infrastructure)
        #expect(result.interruption == .infrastructure("radio 'radio' (hci tcp:127.0.0.1:9) failed: the transport closed"))
        // Noticed at once: a hundred thousand handshakes would take hours; the run ended right after the fault
        // (the margin is for a test process whose other suites hold every thread of the pool for a while).
        #expect(result.benchTime < fault.sinceOrigin + .seconds(30), "\(result.benchTime)")
        let tests = result.result.boards.flatMap(\.tests)
        // The handshakes in flight end as errors; the ones that never started are skipped as not run.
        let handshakes = tests.filter {
            if case .skipped = $0.outcome { false } else { $0.suite == "handshake" }
        }
        #expect(!handshakes.isEmpty, "\(tests.map { "\($0.board) \($0.suite).\($0.name): \($0.outcome)" })")
        for check in handshakes {
            #expect(check.failureClass == .infrastructure, "\(check.name): \(check.outcome)")
            guard case .error(let message, _) = check.outcome else {
                Issue.record("\(check.board) \(check.suite).\(check.name) ended \(check.outcome), not as an error")
                continue
            }
            #expect(message.contains("the transport closed"), "\(message)")
            #expect(check.measurements.isEmpty)
        }
        // No check passed on numbers from the failed window.
        for check in tests where check.outcome == .passed {
            #expect(check.started.advanced(by: check.duration) < fault, "\(check.suite).\(check.name) passed after")
        }
        let finished = try #require(result.result.finished)
        #expect(finished.nonPasses.contains { $0.failureClass == .infrastructure && $0.suite == "handshake" })
        #expect(finished.nonPasses.allSatisfy { $0.failureClass != .test })
    }

    @Test("a check during which a bench part failed does not pass, even when its body finished with numbers")
    func noPassOnAFailedWindow() async throws {
        let clock = WallClock()
        let health = BenchHealth()
        let events = Mutex<[RunEvent]>([])
        let recorder = CheckRecorder(board: "b1", clock: clock, control: RunControl(), health: health) { event in
            events.withLock { $0.append(event) }
        }
        let outcome = await recorder.check("s", "measures", timeout: .seconds(30)) {
            // The part fails while the body runs; the body ignores cancellation and returns numbers anyway.
            health.report(BenchFault(part: "rootcanal (pid 1)", cause: "it exited with status 137", at: clock.now))
            return [
                MeasuredValue(metric: "link.drop_rate", statistic: .value, value: 283, unit: .perHour, definition: "d")
            ]
        }
        guard case .error(let message, _) = outcome else {
            Issue.record("\(outcome)")
            return
        }
        #expect(message.hasPrefix("rootcanal (pid 1) failed at"))
        let finished = events.withLock { $0 }.compactMap { if case .testFinished(let end) = $0 { end } else { nil } }
        #expect(finished.count == 1)
        #expect(finished.first?.measurements == [])
        #expect(finished.first?.failureClass == .infrastructure)
        // Later checks on the board do not even start their body.
        let ran = Mutex(false)
        let later = await recorder.check("s", "later", timeout: .seconds(30)) {
            ran.withLock { $0 = true }
            return []
        }
        #expect(!ran.withLock { $0 })
        #expect(later != .passed)
    }

    @Test("a board's own part failing is a board failure for that board only")
    func boardPartIsBoardClass() async throws {
        let clock = WallClock()
        let health = BenchHealth()
        health.report(BenchFault(part: "serial port /dev/ttyACM0", cause: "it vanished", board: "b1", at: clock.now))
        let classes = Mutex<[String: FailureClass?]>([:])
        for board in ["b1", "b2"] {
            let recorder = CheckRecorder(board: board, clock: clock, control: RunControl(), health: health) { event in
                if case .testFinished(let end) = event { classes.withLock { $0[end.board] = end.failureClass } }
            }
            await recorder.check("s", "c", timeout: .seconds(5)) { [] }
        }
        #expect(classes.withLock { $0 } == ["b1": .board, "b2": nil])
    }

    struct Thrown: Error {}

    @Test(
        "every way a check ends has its class: product defect test, silence or any other error board, bench error infrastructure",
        arguments: [
            (0, FailureClass?.some(.test)), (1, .some(.board)), (2, .some(.infrastructure)), (3, .some(.board)),
            (4, nil),
        ])
    func classes(way: Int, expected: FailureClass?) async throws {
        let clock = WallClock()
        let ended = Mutex<RunEvent.TestFinished?>(nil)
        let recorder = CheckRecorder(board: "b", clock: clock, control: RunControl()) { event in
            if case .testFinished(let end) = event { ended.withLock { $0 = end } }
        }
        await recorder.check("s", "c", timeout: .milliseconds(200)) {
            switch way {
            case 0: throw CheckFailure("ota.success_rate value 0.9 < 0.992")
            case 1: throw Thrown()
            case 2: throw BenchError(.gone, "ingest server stopped")
            case 3: try await Task.sleep(for: .seconds(30))
            default: break
            }
            return []
        }
        let end = try #require(ended.withLock { $0 })
        #expect(end.failureClass == expected, "\(end.outcome)")
        #expect(end.wallDuration != nil)
    }

    @Test(
        "a radio that ends its scan is the radio's failure: named once the bench reports it, infrastructure if it never does",
        arguments: [true, false])
    func scanEndedBeforeTheFault(reported: Bool) async throws {
        let clock = WallClock()
        let health = BenchHealth()
        let ended = Mutex<RunEvent.TestFinished?>(nil)
        let recorder = CheckRecorder(board: "b1", clock: clock, control: RunControl(), health: health) { event in
            if case .testFinished(let end) = event { ended.withLock { $0 = end } }
        }
        if reported {
            // The kernel path ends the scans at once; the adapter's removal reaches the bench a little later.
            Task {
                try await Task.sleep(for: .milliseconds(300))
                health.report(
                    BenchFault(part: "radio 'radio' (bluez hci0)", cause: "hci0 was removed under the run", at: clock.now))
            }
        }
        let outcome = await recorder.check("preflight", "reachable", timeout: .seconds(30)) {
            throw SessionError.scanEnded(waitingFor: "an advertisement from name 'b1'", after: .milliseconds(3200))
        }
        let end = try #require(ended.withLock { $0 })
        #expect(end.failureClass == .infrastructure, "\(outcome)")
        guard case .error(let message, _) = outcome else {
            Issue.record("\(outcome)")
            return
        }
        if reported {
            #expect(message.hasPrefix("radio 'radio' (bluez hci0) failed at"), "\(message)")
        } else {
            #expect(message.contains("the radio ended its scan 3200 ms into the wait"), "\(message)")
        }
    }

    @Test("a fault is heard by every waiter it affects, and by one that starts waiting after it")
    func healthWakesWaiters() async {
        let health = BenchHealth()
        async let forB1 = health.nextFault(affecting: "b1")
        async let forBench = health.nextFault(affecting: nil)
        try? await Task.sleep(for: .milliseconds(50))
        health.report(BenchFault(part: "serial port", cause: "gone", board: "b1", at: .origin))
        health.report(BenchFault(part: "rootcanal", cause: "exited", at: .origin))
        #expect(await forB1?.part == "serial port")
        #expect(await forBench?.part == "rootcanal")
        #expect(await health.nextFault(affecting: "b2")?.part == "rootcanal")
        #expect(health.fault(affecting: "b2")?.part == "rootcanal")
    }
}
