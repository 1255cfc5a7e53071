import BLECore

extension AppCentral {
    /// The board's first advertising report within `limit`, or nil when none came (a scan the radio ends first
    /// throws ``SessionError/scanEnded(waitingFor:after:)``): the app's own scan for its board
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
        let board = board
        return try await firstReport(
            on: shell.central, filter: ScanFilter(addresses: [board]), within: limit, clock: clock,
            waitingFor: "an advertisement from \(board)"
        ) { report in report.address == board && accept(report) }
    }
}
