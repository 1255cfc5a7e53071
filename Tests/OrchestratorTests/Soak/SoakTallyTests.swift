import BLECore
import CentralStack
import Testing

@testable import Orchestrator

/// How the soak folds the connection shell's reports: connection time from link-up to link-down, sessions, drops by
/// reason, reconnect times, a link still up at the end.
@Suite("Soak tally")
struct SoakTallyTests {
    static let board = DeviceAddress(0x0000_0000_00AA)
    static func at(_ seconds: Int64) -> RigInstant { RigInstant(sinceOrigin: .seconds(seconds)) }
    static func up(_ seconds: Int64, from: ConnectionState = .pairedDisconnected) -> ConnectionShell.Report {
        .notice(.transition(.init(from: from, to: .pairedConnected, cause: "up", at: at(seconds))), at: at(seconds))
    }

    @Test("links are counted from up to down, the last one until the end; drops by reason; reconnects timed")
    func folds() {
        var tally = SoakTally()
        tally.add(Self.up(0, from: .pairing))
        tally.add(
            .notice(.dropped(Self.board, reason: .connectionTimeout, connectedFor: .seconds(3600)), at: Self.at(3600)))
        #expect(tally.awaitingReconnectSince == Self.at(3600))
        tally.add(.notice(.reconnected(Self.board, after: .milliseconds(400)), at: Self.at(3601)))
        tally.add(Self.up(3601))
        tally.add(
            .notice(.dropped(Self.board, reason: .remotePowerOff, connectedFor: .seconds(1800)), at: Self.at(5401)))
        tally.add(.notice(.reconnected(Self.board, after: .milliseconds(600)), at: Self.at(5402)))
        tally.add(Self.up(5402))
        // An update's end is not a new session.
        tally.add(Self.up(6000, from: .firmwareUpdating))
        tally.add(.notice(.ignored(.otaFinished, why: "test"), at: Self.at(6001)))
        tally.close(at: Self.at(9002))
        #expect(tally.awaitingReconnectSince == nil)
        #expect(tally.sessions == 3)
        #expect(tally.drops == 2)
        #expect(tally.dropsByReason == [0x08: 1, 0x15: 1])
        #expect(tally.connected == .seconds(3600 + 1800 + 3600))
        #expect(tally.reconnect.count == 2)
        let values = Dictionary(
            tally.measurements.map { ("\($0.metric) \($0.statistic)", $0.value) }, uniquingKeysWith: { a, _ in a })
        #expect(values["link.drop_rate value"] == 2.0 / 2.5)
        #expect(values["link.drop_rate reason_0x08"] == 1.0 / 2.5)
        #expect(values["link.drop_rate reason_0x15"] == 1.0 / 2.5)
        #expect(values["link.drop_rate_per_session value"] == 2.0 / 3)
        #expect(values["link.connection_hours value"] == 2.5)
        let interval = PoissonInterval(count: 2, exposure: 2.5)
        #expect(values["link.drop_rate ci95_lower"] == interval.lower)
        #expect(values["link.drop_rate ci95_upper"] == interval.upper)
    }

    @Test("no link: no rate, and the soak check says so")
    func nothingUp() {
        var tally = SoakTally()
        tally.close(at: Self.at(100))
        #expect(tally.perHour == nil)
        #expect(!tally.measurements.contains { $0.metric == "link.drop_rate" })
    }
}
