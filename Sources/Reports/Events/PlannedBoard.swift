/// The checks a run means to run on one board, in the order it runs them: what ``RunEvent/RunStarted/plan``
/// holds, so that every run of a rig reports the same testcases, including a run that was stopped before it got
/// to them.
public struct PlannedBoard: Codable, Sendable, Hashable {
    /// The board id from the rig file.
    public var board: String
    /// The device profile the board runs.
    public var profile: String
    public var checks: [PlannedCheck]

    public init(board: String, profile: String, checks: [PlannedCheck]) {
        self.board = board
        self.profile = profile
        self.checks = checks
    }
}

/// One check of a plan: the suite and the check's name within it, as ``RunEvent/TestFinished`` names them.
public struct PlannedCheck: Codable, Sendable, Hashable {
    public var suite: String
    public var test: String

    public init(suite: String, test: String) {
        self.suite = suite
        self.test = test
    }
}
