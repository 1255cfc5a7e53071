import BLECore
import Foundation
import Reports

extension SampleRuns {
    /// A chatty board: 40 console lines (every fifth a warning, the 23rd an error) between its boot transitions
    /// and its quarantine, next to a quiet board. Folded with ``elidedLimit`` it loses entries in the middle.
    /// Changing it changes `elided.junit.xml`.
    static let elided: [RunEvent] = {
        var events: [RunEvent] = [
            .runStarted(runStarted),
            .boardStarted(.init(board: "esp-01", profile: "esp-point", at: at(0))),
            .transition(.init(board: "esp-01", at: at(0), from: "off", to: "booting", reason: "power on")),
            .transition(.init(board: "esp-01", at: at(5), from: "booting", to: "ready", reason: "boot banner seen")),
            .testStarted(.init(board: "esp-01", suite: "soak", test: "hold", at: at(10))),
            .log(.init(board: "esp-02", at: at(10), level: .warning, source: "central", message: "scan slow")),
        ]
        for line in 1...40 {
            let level: LogLevel = line == 23 ? .error : line % 5 == 0 ? .warning : .info
            events.append(
                .log(
                    .init(
                        board: "esp-01", at: at(10 + line * 10), level: level, source: "console",
                        message: "line \(line)"))
            )
        }
        events += [
            .testFinished(
                .init(
                    board: "esp-01", suite: "soak", test: "hold", started: at(10), duration: .milliseconds(400),
                    outcome: .passed)),
            .transition(.init(board: "esp-01", at: at(420), from: "ready", to: "off", reason: "power off")),
            .boardFinished(.init(board: "esp-01", at: at(430), state: "off")),
            .runFinished(.init(at: at(430), wallDuration: .milliseconds(500))),
        ]
        return events
    }()

    /// The limit ``elided`` is folded with: 2 entries at the front, 6 at the back.
    static let elidedLimit = 8
}
