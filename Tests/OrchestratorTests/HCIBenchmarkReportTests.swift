import Benchmarks
import Testing

@Suite("bench hci's verdicts")
struct HCIBenchmarkReportTests {
    /// A central whose every connect takes `connect` ms and every handshake `handshake` ms, its writes `write` ms.
    static func central(connect: Double, handshake: Double, write: Double = 1.6, cpu: Double = 0.05) -> CentralMeasurement {
        CentralMeasurement(
            connectMs: Array(repeating: connect, count: 50), handshakeMs: Array(repeating: handshake, count: 50),
            attRequests: Array(repeating: 10, count: 50), cpuS: cpu, loopS: 1.25,
            writeMs: Array(repeating: write, count: 1000),
            stream: .init(values: 5000, bytes: 1_220_000, gaps: 0, seconds: 3, size: 244), mtu: 247)
    }

    static func report(blerig: CentralMeasurement, bumble: CentralMeasurement, tick: Double = 1) -> HCIBenchmarkReport {
        HCIBenchmarkReport(
            handshakes: 50, tickMilliseconds: tick, versions: [:], blerig: blerig, campaign: blerig, bumble: bumble)
    }

    static func verdicts(_ report: HCIBenchmarkReport) -> [String: Bool] {
        Dictionary(uniqueKeysWithValues: report.rows.map { ($0.metric, $0.met) })
    }

    @Test("connect and handshake latencies a few hundredths of a tick apart are the same number of ticks")
    func samePhaseSameTicks() {
        // As measured on 2026-11-27: blerig 23.95 ms against Bumble's 23.93, both 24 ticks of 1 ms.
        let verdicts = Self.verdicts(
            Self.report(
                blerig: Self.central(connect: 4.02, handshake: 23.95),
                bumble: Self.central(connect: 4.00, handshake: 23.93)))
        for metric in ["connect p50", "connect p95", "handshake p50", "handshake p95"] {
            #expect(verdicts[metric] == true, "\(metric)")
        }
    }

    @Test("a handshake one tick longer than Bumble's misses, however little the milliseconds differ")
    func oneTickMore() {
        // 24.6 ms is 25 ticks, 24.4 ms 24: 0.2 ms apart, on either side of the half tick.
        let report = Self.report(
            blerig: Self.central(connect: 4.0, handshake: 24.6), bumble: Self.central(connect: 4.0, handshake: 24.4))
        let verdicts = Self.verdicts(report)
        #expect(verdicts["handshake p50"] == false)
        #expect(verdicts["handshake p95"] == false)
        #expect(verdicts["connect p50"] == true)
        #expect(report.lines.contains { $0.hasPrefix("handshake p50") && $0.hasSuffix("MISSED") })
    }

    @Test("ticks are counted at the tick the run confirmed: at 2 ms, 1.9 ms more is still the same tick")
    func tickLength() {
        let blerig = Self.central(connect: 8.9, handshake: 48.9)
        let bumble = Self.central(connect: 8.0, handshake: 48.0)
        #expect(Self.verdicts(Self.report(blerig: blerig, bumble: bumble, tick: 2))["handshake p50"] == true)
        #expect(Self.verdicts(Self.report(blerig: blerig, bumble: bumble, tick: 1))["handshake p50"] == false)
    }

    @Test("write round trips, taken at a random phase of the tick, are compared as measured")
    func writesExact() {
        let verdicts = Self.verdicts(
            Self.report(
                blerig: Self.central(connect: 4, handshake: 24, write: 1.76),
                bumble: Self.central(connect: 4, handshake: 24, write: 1.75)))
        #expect(verdicts["write RTT p50"] == false)
        #expect(verdicts["write RTT p95"] == false)
    }

    @Test("the goal column says which rows count ticks")
    func goalColumn() {
        let report = Self.report(blerig: Self.central(connect: 4, handshake: 24), bumble: Self.central(connect: 4, handshake: 24))
        let goals = Dictionary(uniqueKeysWithValues: report.rows.map { ($0.metric, $0.goal.rawValue) })
        #expect(goals["handshake p50"] == "<= 1 in ticks")
        #expect(goals["connect p95"] == "<= 1 in ticks")
        #expect(goals["write RTT p50"] == "<= 1")
        #expect(goals["CPU per handshake"] == "<= 0.15")
    }
}

extension HCIBenchmarkReportTests {
    @Test("the socket floor is printed with what each central spends above it, and is in the JSON")
    func socketFloorLine() throws {
        var report = Self.report(
            blerig: Self.central(connect: 4, handshake: 24, cpu: 0.040),
            bumble: Self.central(connect: 4, handshake: 24, cpu: 0.200))
        #expect(!report.lines.contains { $0.hasPrefix("socket floor") })
        #expect(try !report.json().contains("socket_floor"))
        report.socketFloor = SocketFloorMeasurement(handshakes: 50, cpuS: 0.024, loopS: 1.2, readsPerHandshake: 48)
        let line = try #require(report.lines.first { $0.hasPrefix("socket floor") })
        // Per handshake: floor 0.48 ms, blerig 0.8, Bumble 4.0.
        #expect(line.contains("used 0.480 ms CPU per handshake (0.12 of Bumble's; 48.0 reads per handshake)"))
        #expect(line.contains("Above it: blerig 0.320 ms, campaign 0.320 ms, Bumble 3.520 ms (0.08 and 0.08 of"))
        #expect(try report.json().contains("\"socket_floor\""))
    }
}

extension HCIBenchmarkReportTests {
    @Test("the host alone is printed with what is left of blerig's figure once it and the floor are taken away")
    func hostAloneLine() throws {
        var report = Self.report(
            blerig: Self.central(connect: 4, handshake: 24, cpu: 0.040),
            bumble: Self.central(connect: 4, handshake: 24, cpu: 0.200))
        #expect(!report.lines.contains { $0.hasPrefix("host alone") })
        #expect(try !report.json().contains("host_replay"))
        report.hostReplay = HostReplayMeasurement(handshakes: 1000, cpuS: 0.09, loopS: 0.3, hostPacketsPerHandshake: 12)
        var line = try #require(report.lines.first { $0.hasPrefix("host alone") })
        // Per handshake: host alone 0.09 ms, blerig 0.8, Bumble 4.0; no floor measured, so nothing is left over.
        #expect(line.contains("replayed 1000 times"))
        #expect(line.contains("(12.0 host packets each)"))
        #expect(line.contains("used 0.090 ms CPU per handshake (0.02 of Bumble's)."))
        #expect(!line.contains("less the floor"))
        report.socketFloor = SocketFloorMeasurement(handshakes: 50, cpuS: 0.024, loopS: 1.2, readsPerHandshake: 48)
        line = try #require(report.lines.first { $0.hasPrefix("host alone") })
        // 0.8 - 0.48 - 0.09.
        #expect(line.contains("blerig less the floor and its host alone: 0.230 ms"))
        #expect(try report.json().contains("\"host_replay\""))
    }
}

extension HCIBenchmarkReportTests {
    @Test("a central's parts and tail make one run: every handshake and write, the CPU of all parts, the tail's stream")
    func partsJoin() throws {
        let first = CentralMeasurement(
            connectMs: [4, 5], handshakeMs: [24, 25], attRequests: [10, 10], cpuS: 0.002, harnessCpuS: 0.001,
            loopS: 0.05, readsPerHandshake: 20, writeMs: [], stream: .none, mtu: 0)
        let second = CentralMeasurement(
            connectMs: [6, 7, 8], handshakeMs: [26, 27, 28], attRequests: [10, 10, 10], cpuS: 0.003,
            harnessCpuS: 0.002, loopS: 0.07, readsPerHandshake: 10, writeMs: [], stream: .none, mtu: 0)
        // Two parts of writes, then the tail with the stream: no handshake samples, no reads counted.
        func writes(_ samples: [Double]) -> CentralMeasurement {
            CentralMeasurement(
                connectMs: [], handshakeMs: [], attRequests: [], cpuS: 0, loopS: 0, writeMs: samples, stream: .none,
                mtu: 247)
        }
        let tail = CentralMeasurement(
            connectMs: [], handshakeMs: [], attRequests: [], cpuS: 0, loopS: 0, writeMs: [],
            stream: .init(values: 10, bytes: 2440, gaps: 0, seconds: 1, size: 244), mtu: 247)
        let joined = try #require(CentralMeasurement.joined([first, second, writes([1.5]), writes([1.6]), tail]))
        #expect(joined.connectMs == [4, 5, 6, 7, 8])
        #expect(joined.handshakeMs == [24, 25, 26, 27, 28])
        #expect(joined.attRequests.count == 5)
        #expect(abs(joined.cpuS - 0.005) < 1e-12 && abs((joined.harnessCpuS ?? 0) - 0.003) < 1e-12)
        #expect(abs(joined.loopS - 0.12) < 1e-12)
        // Per handshake over all five: (2 × 20 + 3 × 10) / 5; the tail, with no handshakes, does not weigh.
        #expect(joined.readsPerHandshake == 14)
        #expect(abs(joined.cpuMsPerHandshake - 1.0) < 1e-9)
        #expect(joined.writeMs == [1.5, 1.6] && joined.stream == tail.stream && joined.mtu == 247)
        #expect(CentralMeasurement.joined([]) == nil)
        // A part with handshakes and no reads counted leaves the run's reads unknown.
        var uncounted = second
        uncounted.readsPerHandshake = nil
        #expect(CentralMeasurement.joined([first, uncounted, tail])?.readsPerHandshake == nil)
        // A stream followed by a part without one keeps the stream and its MTU.
        #expect(CentralMeasurement.joined([tail, first])?.stream == tail.stream)
        #expect(CentralMeasurement.joined([tail, first])?.mtu == 247)
        // Bumble's process counts no harness and no reads.
        let bumble = CentralMeasurement(
            connectMs: [4], handshakeMs: [24], attRequests: [10], cpuS: 0.01, loopS: 0.03, writeMs: [], stream: .none,
            mtu: 0)
        let bumbleRun = try #require(CentralMeasurement.joined([bumble, bumble, tail]))
        #expect(bumbleRun.harnessCpuS == nil && bumbleRun.readsPerHandshake == nil)
    }

    @Test("handshakes split into parts as evenly as they go, the centrals' turns alternating in direction")
    func partsAndTurns() {
        #expect(HCIBenchmark.partSizes(handshakes: 50, parts: 10) == Array(repeating: 5, count: 10))
        #expect(HCIBenchmark.partSizes(handshakes: 53, parts: 10) == [6, 6, 6, 5, 5, 5, 5, 5, 5, 5])
        // Never a part without a handshake, never no part.
        #expect(HCIBenchmark.partSizes(handshakes: 3, parts: 10) == [1, 1, 1])
        #expect(HCIBenchmark.partSizes(handshakes: 7, parts: 1) == [7])
        #expect(HCIBenchmark.partSizes(handshakes: 7, parts: 0) == [7])
        for (handshakes, parts) in [(50, 10), (53, 10), (3, 10), (1000, 7)] {
            #expect(HCIBenchmark.partSizes(handshakes: handshakes, parts: parts).reduce(0, +) == handshakes)
        }
        // Over two parts each central runs once early and once late: every position sums to the same.
        let two = HCIBenchmark.turnOrder(part: 0) + HCIBenchmark.turnOrder(part: 1)
        #expect(two == [0, 1, 2, 2, 1, 0])
        #expect(HCIBenchmark.turnOrder(part: 4) == HCIBenchmark.turnOrder(part: 0))
        #expect(HCIBenchmark.turnOrder(part: 7) == HCIBenchmark.turnOrder(part: 1))
    }
}
