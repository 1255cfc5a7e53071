import BLECore

extension AppCentral {
    /// Work that lasts as long as one link, as an app that streams from its board while connected: queued like
    /// ``perform(_:within:attempts:_:)`` and run on the next ready session, it ends when `body` returns or when that
    /// session's link ends (lost, or closed by the machine), whichever comes first; `body` is then cancelled. The
    /// link's end is no error: the errors its requests get from the ended link are not thrown, other errors are.
    /// Under ``ConnectionPolicy/keepConnected`` the machine reconnects after a drop whether or not such work waits;
    /// the next call gets the next link's session.
    ///
    /// - Returns: true when the link ended first, false when `body` returned first.
    @discardableResult
    public func performWhileConnected(
        _ what: String, within limit: Duration? = nil,
        _ body: @escaping @Sendable (ProfileSession) async throws -> Void
    ) async throws -> Bool {
        try await perform(what, within: limit) { session in
            try await withThrowingTaskGroup(of: Bool.self) { group in
                group.addTask {
                    _ = await session.connection.disconnection()
                    return true
                }
                group.addTask {
                    try await body(session)
                    return false
                }
                defer { group.cancelAll() }
                do {
                    return try await group.next() ?? true
                } catch {
                    if ConnectionShell.isLinkLoss(error) { return true }
                    throw error
                }
            }
        }
    }
}
