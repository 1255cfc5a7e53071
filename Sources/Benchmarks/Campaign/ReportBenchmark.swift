import BLECore
import Foundation
import Reports

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Report generation at scale (`blerig bench reports`): a synthetic run of `testcases` checks over boards of 25
/// checks each (every fifth with 200 raw samples, one in 50 failing, one in 100 flaky after an infrastructure
/// error, log lines and transitions on every board), folded as a run folds it (timeline limit 2,000 per board),
/// then every report rendered: junit.xml, summary.md, report.html, metrics.prom. Measures wall time per step,
/// each report's size, and the process's peak resident memory.
public enum ReportBenchmark {
    public struct Step: Sendable {
        public var name: String
        public var seconds: Double
        public var bytes: Int?
    }

    public struct Measurement: Sendable {
        public var testcases: Int
        public var boards: Int
        public var events: Int
        public var steps: [Step]
        /// ru_maxrss of this process after the run, in bytes.
        public var peakRSSBytes: Int
        public var total: Double { steps.reduce(0) { $0 + $1.seconds } }
    }

    public static let checksPerBoard = 25

    public static func measure(testcases: Int) -> Measurement {
        var steps: [Step] = []
        let clock = ContinuousClock()
        func timed<T>(_ name: String, bytes: (T) -> Int? = { _ in nil }, _ body: () -> T) -> T {
            let start = clock.now
            let value = body()
            let elapsed = start.duration(to: clock.now)
            steps.append(Step(name: name, seconds: elapsed.seconds, bytes: bytes(value)))
            return value
        }
        let events = timed("generate events") { synthetic(testcases: testcases) }
        let result = timed("fold") { () -> RunResult in
            var builder = RunResultBuilder(timelineLimit: 2_000)
            for event in events { builder.take(event) }
            return builder.result()
        }
        let inputs = ReportInputs()
        _ = timed("junit.xml", bytes: { $0.utf8.count }) { JUnitWriter().render(result) }
        _ = timed("summary.md", bytes: { $0.utf8.count }) { SummaryMarkdown().render(result, inputs: inputs) }
        _ = timed("report.html", bytes: { $0.utf8.count }) { HTMLReport().render(result, inputs: inputs) }
        _ = timed("metrics.prom", bytes: { $0.utf8.count }) { OpenMetricsWriter().render(result) }
        var usage = rusage()
        #if canImport(Glibc)
            getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        #else
            getrusage(RUSAGE_SELF, &usage)
        #endif
        return Measurement(
            testcases: result.counts.tests, boards: result.boards.count, events: events.count, steps: steps,
            peakRSSBytes: Int(usage.ru_maxrss) * 1024)
    }

    /// The synthetic run's events.
    static func synthetic(testcases: Int) -> [RunEvent] {
        let boards = max(1, (testcases + checksPerBoard - 1) / checksPerBoard)
        let profiles = ["esp-point", "nano33-ble-sense", "hrm"]
        var events: [RunEvent] = [
            .runStarted(
                .init(
                    runID: "bench-reports", rig: "bench-reports", rigFile: "synthetic", seed: 1, radio: "virtual",
                    wallStart: Date(timeIntervalSince1970: 1_795_600_800), host: "bench"))
        ]
        var made = 0
        var random = SplitMix(seed: 42)
        for b in 0..<boards {
            let board = String(format: "board-%05d", b)
            let at = { (ms: Int) in RigInstant(sinceOrigin: .milliseconds(ms)) }
            events.append(.boardStarted(.init(board: board, profile: profiles[b % 3], at: at(0))))
            events.append(.transition(.init(board: board, at: at(1), from: "off", to: "ready", reason: "boot banner")))
            for c in 0..<checksPerBoard where made < testcases {
                made += 1
                let suite = ["handshake", "commands", "notifications", "soak", "ota"][c % 5]
                let name = "check \(c)"
                let start = at(c * 1_000)
                events.append(.log(.init(board: board, at: start, level: c % 7 == 0 ? .warning : .info,
                    source: "central", message: "starting \(suite) \(name) on \(board)")))
                events.append(.testStarted(.init(board: board, suite: suite, test: name, at: start)))
                let metric = ["handshake.connect_ms", "gatt.write_rtt_ms", "notify.rate_hz", "link.drop_rate",
                    "ota.throughput_kBps"][c % 5]
                let unit: MetricUnit = [.milliseconds, .milliseconds, MetricUnit("Hz"), .perHour, .kilobytesPerSecond][c % 5]
                let values = (0..<(c % 5 == 0 ? 200 : 0)).map { _ in 20 + random.unit() * 30 }
                var measurements = [
                    MeasuredValue(metric: metric, statistic: .p50, value: 25 + random.unit(), unit: unit,
                        definition: "synthetic \(metric)"),
                    MeasuredValue(metric: metric, statistic: .p95, value: 45 + random.unit(), unit: unit,
                        definition: "synthetic \(metric)"),
                ]
                if c % 5 == 3 {
                    measurements.append(MeasuredValue(metric: metric, statistic: Statistic("reason_0x08"),
                        value: random.unit(), unit: unit, definition: "synthetic drops"))
                }
                let samples = values.isEmpty ? [] : [MetricSamples(metric: metric, unit: unit, values: values)]
                let index = b * checksPerBoard + c
                if index % 100 == 7 {
                    events.append(.testFinished(.init(
                        board: board, suite: suite, test: name, started: start, duration: .milliseconds(400),
                        outcome: .error(message: "controller transport closed", details: "synthetic"),
                        failureClass: .infrastructure, wallDuration: .milliseconds(3))))
                    events.append(.testFinished(.init(
                        board: board, suite: suite, test: name, started: start, duration: .milliseconds(500),
                        outcome: .passed, measurements: measurements, wallDuration: .milliseconds(4), attempt: 2,
                        samples: samples)))
                    continue
                }
                let outcome: TestOutcome =
                    index % 50 == 3
                    ? .failed(message: "\(metric) p95 \(45) > 40", details: "synthetic failure") : .passed
                events.append(.testFinished(.init(
                    board: board, suite: suite, test: name, started: start, duration: .milliseconds(500),
                    outcome: outcome, measurements: measurements,
                    failureClass: outcome == .passed ? nil : .test, wallDuration: .milliseconds(4), samples: samples)))
            }
            events.append(.attachment(.init(board: board, kind: .btsnoop, path: "captures/\(board).btsnoop", at: at(30_000))))
            events.append(.attachment(.init(board: board, kind: .console, path: "console/\(board).log", at: at(30_000))))
            events.append(.boardFinished(.init(board: board, at: at(30_000))))
        }
        events.append(.runFinished(.init(at: RigInstant(sinceOrigin: .seconds(30)), wallDuration: .seconds(12))))
        return events
    }

    /// A small deterministic generator (SplitMix64), so every run of the benchmark renders the same reports.
    struct SplitMix {
        var state: UInt64
        init(seed: UInt64) { state = seed }
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
    }
}
