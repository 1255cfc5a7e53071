import BLECore

/// The first report of a scan with `filter` on `central` that `accept` takes, within `limit` on `clock`; nil when
/// none came in that time. A scan that the radio ends before then (switched off, gone, refusing to scan) is not the
/// board's silence: it throws ``SessionError/scanEnded(waitingFor:after:)``, which blames the radio.
///
/// Every report is offered to `accept`, whatever `filter.deduplicate` says: a scan that reports each address once
/// would hide an advertiser's later reports behind the first one `accept` turned down (an advertisement that came
/// without its scan response, and so without the name in it).
public func firstReport(
    on central: any Central, filter: ScanFilter, within limit: Duration, clock: any RigClock, waitingFor what: String,
    where accept: @escaping @Sendable (Advertisement) -> Bool
) async throws(SessionError) -> Advertisement? {
    let started = clock.now
    var everyReport = filter
    everyReport.deduplicate = false
    let scanFilter = everyReport
    do {
        return try await withTimeout(limit, clock: clock, waitingFor: what) {
            for await report in central.scan(scanFilter) where accept(report) { return report }
            // The timer ended the scan (this task was cancelled): withTimeout reports the timeout.
            if Task.isCancelled { return nil }
            throw SessionError.scanEnded(waitingFor: what, after: started.duration(to: clock.now))
        }
    } catch {
        if case .timeout = error { return nil }
        throw error
    }
}
