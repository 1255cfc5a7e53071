extension TestResult {
    /// Where and what, in one sentence: `esp-02 handshake.ready: handshake.ready_ms p95 212.4 ms > 150 ms`.
    /// The message of a failure or error; for a skipped check its reason; nil when it passed.
    public var headline: String? {
        switch outcome {
        case .passed: nil
        case .failed(let message, _), .error(let message, _): "\(board) \(suite).\(name): \(message)"
        case .skipped(let reason): "\(board) \(suite).\(name): skipped: \(reason)"
        }
    }
}

extension RunResult {
    /// Every check that failed or ended in error, one line each, boards and checks in run order:
    /// `esp-02 handshake.ready: handshake.ready_ms p95 212.4 ms > 150 ms`, and for errors
    /// `esp-03 ota.resume: error: lease on esp-03 lost`. Line breaks and control characters in messages are made
    /// visible on the one line.
    public func failingCheckLines() -> [String] {
        boards.flatMap(\.tests).compactMap { test in
            switch test.outcome {
            case .passed, .skipped: nil
            case .failed(let message, _): VisibleText.singleLine("\(test.board) \(test.suite).\(test.name): \(message)")
            case .error(let message, _):
                VisibleText.singleLine("\(test.board) \(test.suite).\(test.name): error: \(message)")
            }
        }
    }
}
