import BLECore
import Foundation
import Reports

/// Runs with what verdicts need: classes on non-passes, wall time, retried checks (flaky and failing every
/// time), samples, a plan, a check that does not apply, and an interruption by the bench.
extension SampleRuns {
    static let plannedBoards = [
        PlannedBoard(
            board: "esp-01", profile: "esp-point",
            checks: [
                .init(suite: "handshake", test: "connect to ready"), .init(suite: "ota", test: "clean update"),
                .init(suite: "soak", test: "drop rate"), .init(suite: "notifications", test: "Reading rate and gaps"),
            ]),
        PlannedBoard(
            board: "nano-01", profile: "nano33-ble-sense",
            checks: [.init(suite: "handshake", test: "connect to ready"), .init(suite: "soak", test: "drop rate")]),
    ]

    static let plannedRun = RunEvent.RunStarted(
        runID: "virtual-farm-20261125T100000Z-s42-00aa", rig: "virtual-farm", rigFile: "rigs/virtual.yaml", seed: 42,
        radio: "virtual", wallStart: Date(timeIntervalSince1970: 1_795_600_800), host: "ci-runner-3",
        plan: plannedBoards)

    static func value(_ metric: String, _ statistic: Statistic, _ value: Double, _ unit: MetricUnit) -> MeasuredValue {
        MeasuredValue(metric: metric, statistic: statistic, value: value, unit: unit, definition: "\(metric) as defined")
    }

    static let connectSamples = (0..<200).map { 20 + Double($0 % 37) * 0.9173 }

    /// A whole run: passes with samples, a flaky OTA check (an infrastructure error, then a pass), a soak check
    /// that failed twice (rerun), a not-applicable check, and drops by reason.
    static var verdicts: [RunEvent] {
        [
            .runStarted(plannedRun),
            .boardStarted(.init(board: "esp-01", profile: "esp-point", at: at(0))),
            .boardStarted(.init(board: "nano-01", profile: "nano33-ble-sense", at: at(0))),
            .testStarted(.init(board: "esp-01", suite: "handshake", test: "connect to ready", at: at(10))),
            .testFinished(
                .init(
                    board: "esp-01", suite: "handshake", test: "connect to ready", started: at(10),
                    duration: .seconds(619_521.032), outcome: .passed,
                    measurements: [
                        value("handshake.connect_ms", .p50, 0.35808767599999997 * 100, .milliseconds),
                        value("handshake.connect_ms", .p95, 52.123456, .milliseconds),
                        value("handshake.connect_ms", .count, 200, .count),
                    ],
                    wallDuration: .milliseconds(2_012),
                    samples: [MetricSamples(metric: "handshake.connect_ms", unit: .milliseconds, values: connectSamples)])),
            .testFinished(
                .init(
                    board: "esp-01", suite: "ota", test: "clean update", started: at(20), duration: .seconds(30),
                    outcome: .error(message: "controller transport closed", details: "tcp:127.0.0.1:6402: reset"),
                    failureClass: .infrastructure, wallDuration: .milliseconds(40))),
            .testFinished(
                .init(
                    board: "esp-01", suite: "ota", test: "clean update", started: at(60), duration: .seconds(31),
                    outcome: .passed,
                    measurements: [
                        value("ota.throughput_kBps", .value, 41.234567, .kilobytesPerSecond),
                        value("ota.efficiency", .value, 0.2371, .ratio),
                    ],
                    wallDuration: .milliseconds(45), attempt: 2)),
            .testFinished(
                .init(
                    board: "esp-01", suite: "soak", test: "drop rate", started: at(100), duration: .seconds(86_400),
                    outcome: .failed(message: "link.drop_rate value 2.9 /h > 0.5 /h", details: "12 drops in 4.1 h"),
                    failureClass: .test, wallDuration: .milliseconds(900))),
            .testFinished(
                .init(
                    board: "esp-01", suite: "soak", test: "drop rate", started: at(200), duration: .seconds(86_400),
                    outcome: .failed(message: "link.drop_rate value 3.1 /h > 0.5 /h", details: "13 drops in 4.2 h"),
                    measurements: [
                        value("link.drop_rate", .value, 3.1, .perHour),
                        value("link.drop_rate", Statistic("reason_0x08"), 2.4, .perHour),
                        value("link.drop_rate", Statistic("reason_0x13"), 0.7, .perHour),
                    ],
                    failureClass: .test, wallDuration: .milliseconds(910), attempt: 2)),
            .testFinished(
                .init(
                    board: "nano-01", suite: "ota", test: "clean update", started: at(30), duration: .zero,
                    outcome: .skipped(reason: "nano33-ble-sense boards have no OTA"), applies: false)),
            .testStarted(.init(board: "nano-01", suite: "handshake", test: "connect to ready", at: at(40))),
            .testFinished(
                .init(
                    board: "nano-01", suite: "handshake", test: "connect to ready", started: at(40),
                    duration: .seconds(3), outcome: .passed,
                    measurements: [
                        value("handshake.connect_ms", .p50, 24.5, .milliseconds),
                        value("handshake.connect_ms", .p95, 31.25, .milliseconds),
                        value("handshake.connect_ms", .max, 44, .milliseconds),
                    ],
                    wallDuration: .milliseconds(300))),
            .attachment(.init(board: "esp-01", kind: .btsnoop, path: "captures/esp-01.btsnoop", at: at(300))),
            .attachment(.init(board: "esp-01", kind: .console, path: "console/esp-01.log", at: at(300))),
            .boardFinished(.init(board: "esp-01", at: at(400))),
            .boardFinished(.init(board: "nano-01", at: at(400))),
            .runFinished(.init(at: at(400), wallDuration: .milliseconds(2_345))),
        ]
    }

    /// The bench did not open: a plan, and nothing else but the end.
    static var benchDidNotOpen: [RunEvent] {
        [
            .runStarted(plannedRun),
            .runFinished(
                .init(
                    at: at(0), wallDuration: .milliseconds(12),
                    interruption: "the bench failed: transport tcp:127.0.0.1:1: connection refused",
                    interruptionClass: .infrastructure)),
        ]
    }

    /// The bench failed during the run: esp-01 ran one check, the rest of the plan never ran.
    static var benchFailedMidRun: [RunEvent] {
        [
            .runStarted(plannedRun),
            .boardStarted(.init(board: "esp-01", profile: "esp-point", at: at(0))),
            .testFinished(
                .init(
                    board: "esp-01", suite: "handshake", test: "connect to ready", started: at(10),
                    duration: .seconds(1), outcome: .passed, wallDuration: .milliseconds(20))),
            .testStarted(.init(board: "esp-01", suite: "ota", test: "clean update", at: at(1_100))),
            .runFinished(
                .init(
                    at: at(2_000), wallDuration: .milliseconds(40), interruption: "rootcanal (pid 4242) exited",
                    interruptionClass: .infrastructure)),
        ]
    }
}
