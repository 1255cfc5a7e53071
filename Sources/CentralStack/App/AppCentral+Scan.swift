import BLECore

extension AppCentral {
    /// The board's first advertising report within `limit`, or nil when none came: the app's own scan for its board
    /// (an app's "nearby" screen, or its check that a board it lost is back), on the central the machine connects
    /// with. It is not the machine's: the machine scans only for a board to pair with
    /// (``ConnectionState/unpairedScanning``) and reaches a paired board by connecting, and a connection attempt
    /// answers the board's advertising rather than reporting it. So an app that wants to see the board advertise
    /// scans while no work is queued (the machine then connects to nothing), as the suites that time advertising do.
    ///
    /// - Parameter accept: which reports count (all by default): a check that needs the scan response merged in
    ///   waits for one that has it.
    public func firstAdvertisement(
        within limit: Duration, where accept: @escaping @Sendable (Advertisement) -> Bool = { _ in true }
    ) async throws(SessionError) -> Advertisement? {
        let (central, board) = (shell.central, board)
        do {
            return try await withTimeout(limit, clock: clock, waitingFor: "an advertisement from \(board)") {
                for await report in central.scan(ScanFilter(addresses: [board]))
                where report.address == board && accept(report) {
                    return report
                }
                return nil
            }
        } catch {
            if case .timeout = error { return nil }
            throw error
        }
    }
}
