import BLECore
import CentralStack
import Foundation
import Reports

extension BoardUnderTest {
    /// A connection state machine with its shell for this board: it scans for the board's address, pairs with
    /// the rig's key (the same key the app central pairs with), connects and reconnects on the board's
    /// central. Its transitions go into the board's timeline (and so the JUnit system-out) with their causes;
    /// every report also goes to `report`.
    ///
    /// - Parameter spec: what a session needs and subscribes to; the board's profile spec by default.
    func connectionShell(
        policy: ConnectionPolicy, store: (any ConnectionStateStore)?, purpose: String, spec: ProfileSpec? = nil,
        report: @escaping @Sendable (ConnectionShell.Report) -> Void,
        traffic: @escaping @Sendable (ProfileSession) async throws -> Void = { _ in }
    ) -> ConnectionShell {
        var keyRandom = random("pairing-key")
        let key = (0..<32).map { _ in UInt8(truncatingIfNeeded: keyRandom.next()) }
        let recorder = recorder
        let (clock, origin) = (clock, unixTimeAtOrigin)
        return ConnectionShell(
            central: central, radio: central as? any RadioPower,
            configuration: .init(
                spec: spec ?? self.spec, policy: policy, scanFilter: ScanFilter(addresses: [address]),
                backoff: ReconnectBackoff(random: random("\(purpose)-backoff"))),
            keys: keys, newKey: { key }, store: store,
            wallClock: { Date(timeIntervalSince1970: (origin + clock.now.sinceOrigin).seconds) },
            report: { event in
                recorder.record(event)
                report(event)
            }, traffic: traffic)
    }
}

extension CheckRecorder {
    /// Puts a connection shell's report in the board's timeline: a transition of the state machine as a
    /// transition (`central.pairedConnected → central.pairedDisconnected: link lost: connection timeout`), other
    /// notices and each connection attempt (`session with … ready in 312.319 ms (link up in …)`) as log lines of
    /// source `central`, attempts that failed and problems as warnings.
    func record(_ report: ConnectionShell.Report) {
        switch report {
        case .attempt(let attempt, let at):
            let level: LogLevel = attempt.succeeded ? .info : .warning
            emit(.log(.init(board: board, at: at, level: level, source: "central", message: "\(attempt)")))
        case .notice(.transition(let transition), _):
            emit(
                .transition(
                    .init(
                        board: board, at: transition.at, from: "central.\(transition.from)",
                        to: "central.\(transition.to)", reason: transition.cause)))
        case .notice(let notice, let at):
            emit(.log(.init(board: board, at: at, level: .info, source: "central", message: "\(notice)")))
        case .problem(let message, let at):
            emit(.log(.init(board: board, at: at, level: .warning, source: "central", message: message)))
        }
    }
}
