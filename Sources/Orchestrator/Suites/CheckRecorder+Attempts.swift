import BenchCore
import CentralStack
import Reports

extension CheckRecorder {
    /// Which attempt of each suite is running, and how its checks ended: what the campaign's retry and
    /// quarantine decisions read.
    struct Attempts: Sendable {
        /// The running attempt of each suite, from 1; a suite not in it is on its first.
        private var current: [String: Int] = [:]
        /// The checks of each suite's running attempt, in the order they ended.
        private var ended: [String: [Ended]] = [:]

        struct Ended: Sendable, Hashable {
            var name: String
            var outcome: TestOutcome
            var failureClass: FailureClass?
        }

        func attempt(of suite: String) -> Int { current[suite] ?? 1 }

        mutating func end(suite: String, name: String, outcome: TestOutcome, failureClass: FailureClass?) {
            ended[suite, default: []].append(Ended(name: name, outcome: outcome, failureClass: failureClass))
        }

        mutating func next(_ suite: String) -> Int {
            let next = attempt(of: suite) + 1
            current[suite] = next
            ended[suite] = []
            return next
        }

        func checks(of suite: String) -> [Ended] { ended[suite] ?? [] }
    }

    /// Starts the next attempt of `suite`: its checks from now on finish with that attempt number, and reports
    /// keep the earlier ones as the check's history. Returns the attempt, from 2.
    @discardableResult
    func beginNextAttempt(of suite: String) -> Int { attempts.withLock { $0.next(suite) } }

    /// How the checks of `suite`'s running attempt ended so far.
    func endedChecks(of suite: String) -> [Attempts.Ended] { attempts.withLock { $0.checks(of: suite) } }
}

extension FailureClass {
    /// The class of a check that ended with `error` rather than a verdict: a bench part's error
    /// (``BenchCore/BenchError``: a radio, a port, a process, the ingest) or a scan the radio ended
    /// (``SessionError/scanEnded(waitingFor:after:)``) is infrastructure; anything else the board caused by not
    /// answering as its contract says (a connection that failed, a procedure that timed out) is a board failure.
    /// Product defects are thrown as ``CheckFailure`` and never reach here.
    init(classifying error: any Error) {
        if error is BenchError {
            self = .infrastructure
        } else if case SessionError.scanEnded = error {
            self = .infrastructure
        } else {
            self = .board
        }
    }
}
