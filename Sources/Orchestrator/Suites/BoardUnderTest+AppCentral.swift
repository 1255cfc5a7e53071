import BLECore
import CentralStack
import Foundation
import Reports

extension BoardUnderTest {
    /// The app's central for this board (``AppCentral``, connecting on demand), with the run's pairing keys (it
    /// pairs with the rig's key, drawn from the run's seed as the pairing suite's is) and GATT cache. Its machine's
    /// transitions go into the board's timeline — and so the JUnit system-out — with their causes, and so does
    /// every connection attempt with its timing (``LinkAttempt``).
    ///
    /// - Parameters:
    ///   - policy: when its machine wants a link: on demand (the app's usual), or always (the soak's held link).
    ///   - spec: what its sessions need and subscribe to; the board's profile spec by default.
    ///   - cache: the GATT cache its sessions are made ready from; the run's (``gattCache``) by default.
    func appCentral(
        purpose: String, policy: ConnectionPolicy = .onDemand, spec: ProfileSpec? = nil,
        store: (any ConnectionStateStore)? = nil, cache: (any GATTCache)? = nil,
        report: @escaping @Sendable (ConnectionShell.Report) -> Void = { _ in }
    ) -> AppCentral {
        var keyRandom = random("pairing-key")
        let key = (0..<32).map { _ in UInt8(truncatingIfNeeded: keyRandom.next()) }
        let recorder = recorder
        let (clock, origin) = (clock, unixTimeAtOrigin)
        return AppCentral(
            central: central, board: address, radio: central as? any RadioPower,
            configuration: .init(
                spec: spec ?? self.spec, policy: policy, scanFilter: ScanFilter(addresses: [address]),
                backoff: ReconnectBackoff(random: random("\(purpose)-backoff")), cache: cache ?? gattCache),
            keys: keys, newKey: { key }, store: store,
            wallClock: { Date(timeIntervalSince1970: (origin + clock.now.sinceOrigin).seconds) },
            report: { event in
                recorder.record(event)
                report(event)
            })
    }

    /// Runs `body` with this board's app central running, then stops it.
    @discardableResult
    func withAppCentral<T: Sendable>(
        purpose: String, cache: (any GATTCache)? = nil,
        report: @escaping @Sendable (ConnectionShell.Report) -> Void = { _ in }, _ body: (AppCentral) async throws -> T
    ) async throws -> T {
        try await appCentral(purpose: purpose, cache: cache, report: report).running { try await body($0) }
    }
}
