import BLECore
import Foundation
import Reports

extension SampleRuns {
    /// A run stopped by SIGINT: on esp-01 a check passed and the soak check was reported interrupted; on esp-02 a
    /// check was reported interrupted by its own timeout, and the next one was still running when the run ended
    /// (no testFinished). Changing it changes `interrupted.junit.xml`.
    static let interrupted: [RunEvent] = [
        .runStarted(runStarted),
        .boardStarted(.init(board: "esp-01", profile: "esp-point", identity: [.firmware("1.4.2")], at: at(0))),
        .boardStarted(.init(board: "esp-02", profile: "esp-point", at: at(0))),
        .transition(.init(board: "esp-01", at: at(0), from: "off", to: "ready", reason: "boot banner seen")),
        .testStarted(.init(board: "esp-01", suite: "handshake", test: "ready", at: at(100))),
        .testFinished(
            .init(
                board: "esp-01", suite: "handshake", test: "ready", started: at(100), duration: .milliseconds(400),
                outcome: .passed, measurements: [ready(.p95, 98.4)])),
        .testStarted(.init(board: "esp-01", suite: "soak", test: "hold", at: at(600))),
        .testStarted(.init(board: "esp-02", suite: "ota", test: "upload", at: at(600))),
        .log(.init(board: "esp-02", at: at(900), level: .warning, source: "central", message: "write timed out")),
        .testFinished(
            .init(
                board: "esp-02", suite: "ota", test: "upload", started: at(600), duration: .milliseconds(20_000),
                outcome: .interrupted(reason: "check timeout 20 s reached"))),
        .testFinished(
            .init(
                board: "esp-01", suite: "soak", test: "hold", started: at(600), duration: .milliseconds(29_400),
                outcome: .interrupted(reason: "SIGINT received"))),
        .testStarted(.init(board: "esp-02", suite: "notifications", test: "stream", at: at(20_600))),
        .boardFinished(.init(board: "esp-01", at: at(30_000))),
        .boardFinished(.init(board: "esp-02", at: at(30_000))),
        .runFinished(.init(at: at(30_000), wallDuration: .milliseconds(30_050), interruption: "SIGINT received")),
    ]
}
