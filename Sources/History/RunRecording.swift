import BLECore
import Foundation
import Orchestrator
import Reports

/// What `blerig run` does with history: the leases live there, it records where the run comes from, resolves
/// the baseline the run is compared with, and stores the run once it is over (beside the rendering of its
/// reports). The database is opened when first needed (``LazyHistory``).
public struct RunRecording: Sendable {
    public let history: LazyHistory
    public let leasing: DatabaseLeasing
    public let provenance: RunProvenance

    /// `report` gets lines about leases lost while the run goes on.
    public init(
        _ location: HistoryLocation, rigFile: String, leaseTimeout: Duration,
        leaseTTL: Duration = DatabaseLeasing.defaultTTL, report: @escaping @Sendable (String) -> Void
    ) {
        history = LazyHistory(location)
        let host = HostID.current()
        leasing = DatabaseLeasing(
            store: history, owner: .current(host: host), ttl: leaseTTL, timeout: leaseTimeout, lost: report)
        provenance = RigProvenance.read(rigFile: rigFile, host: host)
    }

    /// Stores the finished run; returns the line saying where, or throws what went wrong.
    public func store(_ result: RunResult) async throws(HistoryError) -> String {
        let rows: RunRows
        do { rows = try RunRows(result) } catch {
            throw HistoryError(database: history.location.description, message: error.message)
        }
        let clock = ContinuousClock()
        let start = clock.now
        try await history.store(rows)
        let took = start.duration(to: clock.now)
        return "history: stored run \(rows.run.runID) in \(history.location) "
            + "(\(rows.outcomes.count) outcomes, \(rows.values.count) values, \(rows.samples.count) sample sets, "
            + "\(String(format: "%.0f", took.milliseconds)) ms)"
    }

    public func close() async { await history.close() }
}
