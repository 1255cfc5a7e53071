import BLECore
import DeviceProfiles

extension AppCentral {
    /// How a pull is done: ``LogPuller/pull(client:queue:board:now:observe:)`` unless a test gives another.
    public typealias Puller =
        @Sendable (
            EspPointClient, SyncQueue, String, @escaping @Sendable () -> Double,
            @escaping @Sendable (LogPuller.Step) -> Void
        ) async throws -> PullReport

    /// Pulls the board's flash log into `queue` as one item of work: STATUS, READ, commit durably, ACK
    /// (``LogPuller``). `prepare` runs first on the same session (read the serial, set the board's clock).
    ///
    /// - Parameters:
    ///   - serial: the board's serial number (half of each reading's key), asked once `prepare` has run.
    ///   - now: the time queued readings get as `createdAt`.
    public func pullLog(
        into queue: SyncQueue, serial: @Sendable () -> String, now: @escaping @Sendable () -> Double,
        puller: Puller = LogPuller.pull, observe: @escaping @Sendable (LogPuller.Step) -> Void = { _ in },
        prepare: (EspPointClient) async throws -> Void = { _ in }
    ) async throws -> PullReport {
        try await perform("pulling the log") { session in
            let client = EspPointClient(session: session)
            try await prepare(client)
            return try await puller(client, queue, serial(), now, observe)
        }
    }
}
