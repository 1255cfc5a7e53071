/// Whose fault a check that did not pass is. Reports, retries, gates and history all key on it: a release gate
/// may fail on a product defect, a nightly run retries what the bench did, and nobody blames firmware for a
/// controller that died.
///
/// - ``test``: the board or its firmware did something wrong, a product defect (a value out of its limit, a
///   wrong response, a lost reading).
/// - ``board``: the board did not get as far as being tested: it did not boot, stopped answering, vanished from
///   the air or the bus.
/// - ``infrastructure``: the bench under the board failed: a radio, a controller or its transport, a process
///   blerig started, the ingest server, the host, the disk.
public enum FailureClass: String, Codable, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case test
    case board
    case infrastructure

    public var description: String { rawValue }

    /// How people read it: `test failure`, `board failure`, `infrastructure failure`.
    public var phrase: String { "\(rawValue) failure" }
}
