import BLECore
import Testing

@testable import Reports

@Suite("Run events: outcomes, values and levels")
struct RunEventTests {
    static let ready = SampleRuns.ready(.p95, 212.4)
    static let throughput = MeasuredValue(
        metric: "ota.throughput_kBps", statistic: .value, value: 42, unit: .kilobytesPerSecond,
        definition: "first image byte sent → last byte acknowledged")
    static let drops = MeasuredValue(
        metric: "link.drops", statistic: .count, value: 3, unit: .count, definition: "unexpected disconnects")

    @Test(
        "limit failures say metric, statistic, measured value and limit with units",
        arguments: [
            (TestOutcome.exceeded(ready, limit: 150), "handshake.ready_ms p95 212.4 ms > 150 ms"),
            (.fellShort(throughput, of: 60.5), "ota.throughput_kBps value 42 kB/s < 60.5 kB/s"),
            (.exceeded(drops, limit: 0), "link.drops count 3 > 0"),
        ])
    func limitMessages(outcome: TestOutcome, message: String) {
        #expect(outcome == .failed(message: message, details: ""))
    }

    @Test("log levels order by severity, unknown names beside info, and the order is total")
    func logLevelOrder() {
        let levels: [LogLevel] = [.critical, .info, LogLevel(rawValue: "verbose"), .trace, .warning, .error, .debug]
        #expect(
            levels.sorted().map(\.rawValue) == ["trace", "debug", "info", "verbose", "warning", "error", "critical"])
        let unknown = LogLevel(rawValue: "verbose")
        #expect([unknown < .info, unknown == .info, .info < unknown].filter { $0 }.count == 1)
        #expect(unknown < .warning)
    }

    @Test("every board event names its board; run events name none")
    func boardOfEvent() {
        #expect(SampleRuns.bench.map(\.board).compactMap { $0 }.allSatisfy { $0.hasPrefix("esp-0") })
        #expect(SampleRuns.bench.first?.board == nil)
        #expect(SampleRuns.bench.last?.board == nil)
    }
}
