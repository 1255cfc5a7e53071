import BLECore
import CentralStack
import Reports

/// `handshake`: N connections one after another, each brought to ready and closed. Reports
/// `handshake.connect_ms` (connect request → link up) and `handshake.ready_ms` (connect request → MTU
/// exchanged, services discovered, notifications enabled). On the virtual farm every connect is also compared
/// with the link model's prediction for the same instant: the measurement path is right only if they agree.
struct HandshakeSuite: Suite {
    static let name = "handshake"
    var connections = 20
    /// Idle time between two connections: drawn from this range so requests fall at different advertising phases.
    var pause: ClosedRange<Double> = 0.1...0.5

    static let connectDefinition = "connect request → link up (the first connection event completed)"
    static let readyDefinition = "connect request → MTU exchanged, services discovered, notifications enabled"

    init(options: inout RigMappingReader) {
        if let count = options.integer("connections", in: 1...100_000) { connections = count }
    }

    func run(on board: BoardUnderTest) async {
        var connect = LatencyHistogram(metric: "handshake.connect_ms", definition: Self.connectDefinition)
        var ready = LatencyHistogram(metric: "handshake.ready_ms", definition: Self.readyDefinition)
        var comparisons: [(attempt: Int, measured: Duration, predicted: Duration)] = []
        // Test names stay the same whatever the options, so CI keeps one history per check.
        await board.recorder.check(Self.name, "connect to ready") {
            var failures: [String] = []
            var random = board.random("handshake-pauses")
            for attempt in 1...connections {
                let requested = board.clock.now
                let predicted = board.predictConnect?(requested)
                do {
                    let timeline = try await board.withSession { $0.timeline }
                    connect.record(timeline.connect)
                    ready.record(timeline.total)
                    if let predicted { comparisons.append((attempt, timeline.connect, predicted)) }
                } catch {
                    failures.append("attempt \(attempt) at \(requested): \(error)")
                    board.recorder.log(.warning, "central", "handshake attempt \(attempt) failed: \(error)")
                }
                let pause = pause.lowerBound + (pause.upperBound - pause.lowerBound) * random.nextUnit()
                try await board.clock.sleep(for: .milliseconds(Int64(pause * 1000)))
            }
            let measurements =
                connect.measurements + ready.measurements + [
                    MeasuredValue(
                        metric: "handshake.failures", statistic: .value, value: Double(failures.count), unit: .count,
                        definition: "connections that did not reach ready")
                ]
            guard failures.isEmpty else {
                throw MeasuredFailure(
                    failure: CheckFailure(
                        "\(board.place): \(failures.count) of \(connections) handshakes failed; first: \(failures[0])",
                        details: failures.joined(separator: "\n")),
                    measurements: measurements)
            }
            board.recorder.log(
                .info, "central",
                String(
                    format: "handshake p50 connect %.3f ms, ready %.3f ms over %d connections",
                    connect.percentile(50), ready.percentile(50), connections))
            return measurements
        }
        guard board.predictConnect != nil else { return }
        await board.recorder.check(Self.name, "connect latency matches the link model") {
            guard !comparisons.isEmpty else { throw CheckFailure("\(board.place): no connection succeeded to compare") }
            let errors = comparisons.map { abs(($0.measured - $0.predicted).milliseconds) }
            let worst = errors.max() ?? 0
            let measurements = [
                MeasuredValue(
                    metric: "handshake.model_error_ms", statistic: .max, value: worst, unit: .milliseconds,
                    definition:
                        "largest |measured − predicted| handshake.connect_ms; the prediction is the link model's closed form"
                )
            ]
            // The simulation's clock resolves nanoseconds: anything above one is a real disagreement.
            let off = comparisons.filter { abs(($0.measured - $0.predicted).milliseconds) > 1e-6 }
            guard off.isEmpty else {
                throw MeasuredFailure(
                    failure: CheckFailure(
                        "\(board.place): \(off.count) of \(comparisons.count) connects disagree with the link model; attempt \(off[0].attempt) measured \(off[0].measured.msText), predicted \(off[0].predicted.msText)",
                        details: off.map {
                            "attempt \($0.attempt): measured \($0.measured.msText), predicted \($0.predicted.msText)"
                        }
                        .joined(separator: "\n")),
                    measurements: measurements)
            }
            return measurements
        }
    }
}
