import Foundation
import Synchronization

/// A history opened on first use. `blerig run` hands one to the campaign so that nothing is created or
/// connected before the run has made its report directory (a bad `--out` is reported as such, not as a history
/// that cannot be opened beside it).
public final class LazyHistory: RunHistory {
    public let location: HistoryLocation
    private let opened = Mutex<Task<Result<any RunHistory, HistoryError>, Never>?>(nil)

    public init(_ location: HistoryLocation) { self.location = location }

    /// The history, opened by the first caller; every caller gets the same one, or the same error.
    public func open() async throws(HistoryError) -> any RunHistory {
        let location = location
        let task = opened.withLock { task in
            if let task { return task }
            let new = Task { () async -> Result<any RunHistory, HistoryError> in
                do throws(HistoryError) { return .success(try await History.open(location)) } catch {
                    return .failure(error)
                }
            }
            task = new
            return new
        }
        return try await task.value.get()
    }

    public func schemaVersion() async throws(HistoryError) -> Int { try await open().schemaVersion() }
    public func store(_ rows: RunRows) async throws(HistoryError) { try await open().store(rows) }
    public func runs(rig: String?, last: Int?) async throws(HistoryError) -> [RunRecord] {
        try await open().runs(rig: rig, last: last)
    }
    public func run(_ id: String) async throws(HistoryError) -> RunRecord? { try await open().run(id) }
    public func boards(run id: String) async throws(HistoryError) -> [BoardRecord] { try await open().boards(run: id) }
    public func outcomes(run id: String) async throws(HistoryError) -> [OutcomeRecord] {
        try await open().outcomes(run: id)
    }
    public func values(run id: String, board: String?, metric: String?) async throws(HistoryError) -> [ValueRecord] {
        try await open().values(run: id, board: board, metric: metric)
    }
    public func samples(run id: String, board: String?, metric: String?) async throws(HistoryError) -> [SamplesRecord] {
        try await open().samples(run: id, board: board, metric: metric)
    }
    public func definitions(run id: String) async throws(HistoryError) -> [String: String] {
        try await open().definitions(run: id)
    }
    public func setBaseline(_ name: String, run: String, by: String) async throws(HistoryError) {
        try await open().setBaseline(name, run: run, by: by)
    }
    public func baselines() async throws(HistoryError) -> [BaselineRecord] { try await open().baselines() }
    public func tryAcquire(
        resource: String, board: String, owner: String, token: String, ttl: Duration
    )
        async throws(HistoryError) -> LeaseAttempt
    {
        try await open().tryAcquire(resource: resource, board: board, owner: owner, token: token, ttl: ttl)
    }
    public func renew(resource: String, token: String, ttl: Duration) async throws(HistoryError) -> LeaseRecord? {
        try await open().renew(resource: resource, token: token, ttl: ttl)
    }
    @discardableResult
    public func release(resource: String, token: String) async throws(HistoryError) -> Bool {
        try await open().release(resource: resource, token: token)
    }
    public func leases() async throws(HistoryError) -> (leases: [LeaseRecord], now: Date) { try await open().leases() }
    public func tryAcquire(
        _ requests: [LeaseRequest], owner: String, token: String, ttl: Duration
    )
        async throws(HistoryError) -> LeasePrefix
    {
        try await open().tryAcquire(requests, owner: owner, token: token, ttl: ttl)
    }
    public func renew(resources: [String], token: String, ttl: Duration) async throws(HistoryError) -> Set<String> {
        try await open().renew(resources: resources, token: token, ttl: ttl)
    }
    public func release(resources: [String], token: String) async throws(HistoryError) {
        try await open().release(resources: resources, token: token)
    }

    /// Closes the history if it was opened.
    public func close() async {
        guard let task = opened.withLock({ $0 }), case .success(let history) = await task.value else { return }
        await history.close()
    }
}
