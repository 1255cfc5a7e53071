import BLECore
import CentralStack
import Reports

/// `handshake`: N connections one after another, each brought to ready and closed. Reports
/// `handshake.connect_ms` (connect request → link up) and `handshake.ready_ms` (connect request → MTU
/// exchanged, services discovered, notifications enabled).
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

    /// A connection attempt gives up after 10 s and a handshake takes seconds at worst: a minute each.
    var defaultCheckTimeout: Duration { .seconds(120) + .seconds(60) * connections }

    func run(on board: BoardUnderTest) async {
        let (connections, pause) = (connections, pause)
        // Test names stay the same whatever the options, so CI keeps one history per check.
        await board.check(Self.name, "connect to ready") {
            var connect = LatencyHistogram(metric: "handshake.connect_ms", definition: Self.connectDefinition)
            var ready = LatencyHistogram(metric: "handshake.ready_ms", definition: Self.readyDefinition)
            var failures: [String] = []
            var random = board.random("handshake-pauses")
            for attempt in 1...connections {
                let requested = board.clock.now
                do {
                    let timeline = try await board.withSession { $0.timeline }
                    connect.record(timeline.connect)
                    ready.record(timeline.total)
                } catch {
                    try Task.checkCancellation()
                    failures.append("attempt \(attempt) at \(requested): \(error)")
                    board.recorder.log(.warning, "central", "handshake attempt \(attempt) failed: \(error)")
                }
                let wait = pause.lowerBound + (pause.upperBound - pause.lowerBound) * random.nextUnit()
                try await board.clock.sleep(for: .milliseconds(Int64(wait * 1000)))
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
    }
}
