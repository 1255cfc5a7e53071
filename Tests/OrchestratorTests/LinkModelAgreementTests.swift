import BLECore
import BenchCore
import Benches
import Foundation
import Reports
import Synchronization
import Testing
import VirtualFarm

@testable import Orchestrator

/// The measurement path, end to end: every `handshake.connect_ms` the campaign measures through the suites equals
/// the link model's closed-form prediction for the same instant. On the virtual farm this holds by construction,
/// so it is a test here and no check in a user's report.
@Suite("Link model agreement")
struct LinkModelAgreementTests {
    /// Each connect's measured latency next to the link model's prediction.
    final class Comparisons: Sendable {
        let pairs = Mutex<[(board: DeviceAddress, measured: Duration, predicted: Duration?)]>([])
    }

    /// The real builder's launcher, with each radio's central wrapped to compare every connect with the model.
    struct PredictingFactory: BenchFactory {
        let comparisons: Comparisons

        func launcher(for rig: RigConfig, seed: UInt64) throws(CampaignError) -> any BenchLauncher {
            let inner = try BenchBuilder().launcher(for: rig, seed: seed)
            return PredictingLauncher(inner: inner, comparisons: comparisons)
        }
    }

    struct PredictingLauncher: BenchLauncher {
        let inner: any BenchLauncher
        let comparisons: Comparisons
        var summary: String { inner.summary }

        func withBench<T: Sendable>(
            _ body: @escaping @Sendable (any Bench) async throws -> T
        ) async throws -> BenchOutcome<T> {
            let comparisons = comparisons
            return try await inner.withBench { bench in
                let virtual = try #require(bench as? VirtualBench)
                return try await body(PredictingBench(inner: virtual, comparisons: comparisons))
            }
        }
    }

    struct PredictingBench: Bench {
        let inner: VirtualBench
        let comparisons: Comparisons
        var clock: any RigClock { inner.clock }
        var unixTimeAtOrigin: Duration { inner.unixTimeAtOrigin }
        var boards: [BenchBoard] { inner.boards }
        var health: BenchHealth { inner.health }
        var radios: [any BenchRadio] {
            inner.virtualRadios.map { PredictingRadio(inner: $0, air: inner.farm.air, comparisons: comparisons) }
        }
    }

    struct PredictingRadio: BenchRadio, @unchecked Sendable {
        // @unchecked Sendable: the air is confined to the simulation thread, where the campaign uses the radio.
        let inner: VirtualRadio
        let air: VirtualAir
        let comparisons: Comparisons
        var id: String { inner.id }
        var kind: String { inner.kind }
        var maxLinks: Int { inner.maxLinks }
        var counters: [RadioCounter] { inner.counters }
        func capture(into sink: any CaptureSink) { inner.capture(into: sink) }
        var central: any Central { PredictingCentral(inner: inner.central, air: air, comparisons: comparisons) }
    }

    struct PredictingCentral: Central, @unchecked Sendable {
        // @unchecked Sendable: as PredictingRadio.
        let inner: any Central
        let air: VirtualAir
        let comparisons: Comparisons
        var clock: any RigClock { inner.clock }
        func scan(_ filter: ScanFilter) -> AsyncStream<Advertisement> { inner.scan(filter) }

        func connect(to address: DeviceAddress, timeout: Duration) async throws(CentralError) -> any GATTConnection {
            let requested = clock.now
            let predicted = air.predictedConnectLatency(to: address, requestedAt: requested)
            let connection = try await inner.connect(to: address, timeout: timeout)
            let measured = requested.duration(to: clock.now)
            comparisons.pairs.withLock { $0.append((address, measured, predicted)) }
            return connection
        }
    }

    @Test("every measured connect equals the closed form, each board alone on its radio", arguments: ["7.5", "50"])
    func connectMatchesModel(interval: String) async throws {
        let yaml = """
            rig: model
            radios:
              - {id: r1, kind: virtual}
              - {id: r2, kind: virtual}
              - {id: r3, kind: virtual}
            boards:
              - {id: esp-01, profile: esp-point, radio: r1}
              - {id: nano-01, profile: nano33-ble-sense, radio: r2}
              - {id: hrm-01, profile: hrm, radio: r3}
            virtual: {seed: 42, link: {interval_ms: \(interval)}}
            suites: [discovery, {handshake: {connections: 6}}, {commands: {repetitions: 2}}]
            """
        let comparisons = Comparisons()
        let path = try RigTesting.temporaryFile(Array(yaml.utf8))
        let result = try await Campaign(rigFile: path, benches: PredictingFactory(comparisons: comparisons))
            .run(RunOptions(outputRoot: CampaignTests.outputRoot()))
        #expect(result.status == .passed)
        let pairs = comparisons.pairs.withLock { $0 }
        // Per board: discovery's session, the handshake suite's app central pairing, six handshakes, the commands
        // session; the esp-point's six handshakes are each followed by a warm reconnect with the table cached.
        #expect(pairs.count == 3 * 9 + 6)
        for pair in pairs {
            let predicted = try #require(pair.predicted, "no prediction for a connect to \(pair.board)")
            #expect(pair.measured == predicted, "\(pair.board): measured \(pair.measured), predicted \(predicted)")
        }
        // And the measurements the suite reported are the ones the central saw.
        let measured = result.result.boards.compactMap { board in
            board.tests.first { $0.suite == "handshake" }?.measurements.first {
                $0.metric == "handshake.connect_ms" && $0.statistic == .max
            }?.value
        }
        #expect(measured.count == 3)
    }
}
