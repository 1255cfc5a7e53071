import BLECore
import Foundation
import Reports

extension SampleRuns {
    static func linkWait(_ statistic: Statistic, _ value: Double, unit: MetricUnit = .milliseconds) -> MeasuredValue {
        MeasuredValue(
            metric: "schedule.link_wait_ms", statistic: statistic, value: value, unit: unit,
            definition: "check ready to start → a radio link free for it")
    }

    /// Two boards that report numbers about their whole run when they finish: esp-01 waited for the radio and
    /// was quarantined; esp-02 was switched off and reports a plain count. Changing it changes
    /// `board-numbers.junit.xml`.
    static let boardNumbers: [RunEvent] = [
        .runStarted(runStarted),
        .boardStarted(.init(board: "esp-01", profile: "esp-point", at: at(0))),
        .boardStarted(.init(board: "esp-02", profile: "hrm", at: at(0))),
        .transition(.init(board: "esp-01", at: at(10), from: "off", to: "ready", reason: "boot banner seen")),
        .testFinished(
            .init(
                board: "esp-01", suite: "handshake", test: "ready", started: at(100), duration: .milliseconds(400),
                outcome: .passed, measurements: [ready(.p95, 98.4)])),
        .transition(.init(board: "esp-01", at: at(900), from: "ready", to: "quarantined", reason: "3 failed connects")),
        .boardFinished(
            .init(
                board: "esp-01", at: at(1_000), state: "quarantined",
                measurements: [linkWait(.value, 120), linkWait(.max, 310), linkWait(.count, 4, unit: .count)])),
        .boardFinished(
            .init(
                board: "esp-02", at: at(1_200), state: "off",
                measurements: [
                    MeasuredValue(
                        metric: "power.cycles", statistic: .count, value: 2, unit: .count,
                        definition: "power switch off → on, during the run")
                ])),
        .runFinished(.init(at: at(1_200), wallDuration: .milliseconds(1_300))),
    ]
}
