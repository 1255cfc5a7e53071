/// How often a run tries a suite again on a board, by the class of what went wrong:
///
/// ```yaml
/// retries: {infrastructure: 2, board: 1}   # bench and board failures, tried again after recovering the board
/// rerun_failed: 1                          # test failures too; a check that passes on a rerun is flaky
/// ```
/// Test failures (product defects) are not tried again unless `rerun_failed` asks. A board whose failures
/// outlast its retries is quarantined for the rest of the run.
public struct RetryPolicy: Hashable, Sendable {
    public static let range = 0...10

    /// Further attempts after an infrastructure failure.
    public var infrastructure: Int
    /// Further attempts after a board failure (it did not boot, stopped answering, vanished).
    public var board: Int
    /// Further attempts after a test failure.
    public var rerunFailed: Int

    public init(infrastructure: Int = 0, board: Int = 0, rerunFailed: Int = 0) {
        self.infrastructure = infrastructure
        self.board = board
        self.rerunFailed = rerunFailed
    }

    /// Reads `retries:`; nil when it is not a mapping (recorded in `diagnostics`).
    static func decode(_ node: RigNode, diagnostics: RigDiagnostics) -> RetryPolicy? {
        guard var reader = RigMappingReader(node, noun: "retries", diagnostics: diagnostics) else { return nil }
        var policy = RetryPolicy()
        if let count = reader.integer("infrastructure", in: range) { policy.infrastructure = count }
        if let count = reader.integer("board", in: range) { policy.board = count }
        reader.rejectUnknownKeys()
        return policy
    }
}
