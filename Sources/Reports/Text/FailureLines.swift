extension TestResult {
    /// Where and what, in one sentence: `esp-02 handshake.ready: handshake.ready_ms p95 212.4 ms > 150 ms`.
    /// The message of a failure or error; for a skipped or interrupted check its reason after `skipped:` or
    /// `interrupted:`; nil when it passed.
    public var headline: String? {
        switch outcome {
        case .passed: nil
        case .failed(let message, _), .error(let message, _): "\(board) \(suite).\(name): \(message)"
        case .skipped(let reason): "\(board) \(suite).\(name): skipped: \(reason)"
        case .interrupted(let reason): "\(board) \(suite).\(name): interrupted: \(reason)"
        }
    }
}

extension RunResult {
    /// Every check that failed, ended in error or was interrupted, one line each, boards and checks in run order:
    /// `esp-02 handshake.ready: handshake.ready_ms p95 212.4 ms > 150 ms`, for errors
    /// `esp-03 ota.resume: error: lease on esp-03 lost`, and for interrupted checks
    /// `esp-01 soak.hold: INTERRUPTED: SIGINT received` (capitals, so a reader scanning for why a run is red
    /// tells "did not finish" from "went wrong"). Line breaks and control characters in messages are made
    /// visible on the one line.
    public func failingCheckLines() -> [String] {
        boards.flatMap(\.tests).compactMap { test in
            switch test.outcome {
            case .passed, .skipped: nil
            case .failed(let message, _): VisibleText.singleLine("\(test.board) \(test.suite).\(test.name): \(message)")
            case .error(let message, _):
                VisibleText.singleLine("\(test.board) \(test.suite).\(test.name): error: \(message)")
            case .interrupted(let reason):
                VisibleText.singleLine("\(test.board) \(test.suite).\(test.name): INTERRUPTED: \(reason)")
            }
        }
    }
}
